import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatMessages } from '#db/schema/chat.ts'
import { sharpLoaded } from '#server/lib/sharp.ts'
import { countTokens, tokenizerLoaded } from '#server/modules/models/tokens.ts'
import { stripeSdkLoaded } from '#server/modules/payments/stripe-gateway.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// ADR 067: the tokenizer, Stripe's SDK and sharp load on first need, not at start. An app that
// has served nothing holds none of them; the first chat loads the tokenizer and works, and the
// first Stripe webhook loads the SDK, its signature checked as before. This file's module instance
// is its own, so nothing loaded by another test file counts here.

describe('modules an idle server does not load', () => {
  let api: OpenAiApiDouble
  let stripe: StripeApiDouble
  let t: TestApp
  const keys = { secretKey: 'sk_test_idle', webhookSecret: 'whsec_test_idle' }

  beforeAll(async () => {
    api = await startOpenAiApi({ reply: () => 'The lamp is lit.' })
    stripe = await startStripeApi(keys)
    t = await buildTestApp({
      env: {
        MODELS_FILE: writeModelsFile([
          { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
        ]),
        STRIPE_SECRET_KEY: keys.secretKey,
        STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
        STRIPE_API_URL: stripe.url,
      },
    })
  })
  afterAll(async () => {
    await t?.close()
    await api?.close()
    await stripe?.close()
  })

  it('holds neither the tokenizer, nor the Stripe SDK, nor sharp once started and serving pages', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/roles?pageSize=5' })).statusCode).toBe(200)
    expect(tokenizerLoaded()).toBe(false)
    expect(stripeSdkLoaded()).toBe(false)
    expect(sharpLoaded()).toBe(false)
  })

  it('loads the tokenizer for the first chat, which works; later sends count with it', async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in, {{user}}.' })
    const started = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    expect(started.statusCode, started.body).toBe(200)
    expect(tokenizerLoaded()).toBe(true)
    const sessionId = started.json().data.id as string
    for (const message of ['Hello?', 'Is the lamp lit?']) {
      const sent = await t.injectWithLogin(
        { method: 'POST', url: '/api/chat', payload: { sessionId, message, chatModelId: 'tavern-8b' } },
        user,
      )
      expect(sent.statusCode, sent.body).toBe(200)
      expect(sent.json().data.reply.content).toBe('The lamp is lit.')
    }
    // The stored counts are the tokenizer's.
    const rows = await t.database.db
      .select({ author: chatMessages.author, content: chatMessages.content, tokens: chatMessages.tokens })
      .from(chatMessages)
      .where(eq(chatMessages.sessionId, sessionId))
    const mine = rows.filter((r) => r.author === 'user')
    expect(mine.map((r) => r.tokens)).toEqual(mine.map((r) => countTokens(r.content)))
    expect(mine.map((r) => r.tokens)).toEqual([2, 5])
  })

  it('loads the Stripe SDK for the first webhook and still refuses a forged signature', async () => {
    // An event the app ignores: accepted once its signature is Stripe's, whatever it says.
    const delivery = stripe.event('customer.created', { id: 'cus_idle', description: 'ord_idle' })
    const post = (payload: string, signature: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/webhooks/stripe',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload,
      })
    const forged = await post(delivery.payload.replace('ord_idle', 'ord_other'), delivery.signature)
    expect(forged.statusCode).toBe(400)
    expect(stripeSdkLoaded()).toBe(true)
    expect((await post(delivery.payload, delivery.signature)).statusCode).toBe(200)
  })
})
