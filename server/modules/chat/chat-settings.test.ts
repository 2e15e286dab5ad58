import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chatSessions } from '#db/schema/chat.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 18 item 9, per chat (ADR 033): a user sets temperature and reply length within the
// operator's bounds; every generation of the chat uses them, clamped to the model in use.

type Session = Awaited<ReturnType<TestApp['login']>>

const REPLY = 'The keeper nods and lights the lamp.'

let api: OpenAiApiDouble
let t: TestApp

beforeAll(async () => {
  api = await startOpenAiApi({ reply: REPLY })
  const modelsFile = writeModelsFile([
    // Default bounds: temperature 0 to 1.5, reply length 64 to 1024 (no maxReplyTokens).
    { id: 'tavern-8b', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl, temperature: 0.7 },
    {
      id: 'narrow',
      premium: false,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
      temperature: 0.5,
      maxReplyTokens: 300,
      userTemperature: { min: 0.2, max: 0.8 },
      userReplyTokens: { min: 100, max: 250 },
    },
    {
      id: 'locked',
      premium: false,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
      temperature: 0.6,
      maxReplyTokens: 400,
      userTemperature: false,
      userReplyTokens: false,
    },
  ])
  t = await buildTestApp({
    env: { MODELS_FILE: modelsFile, LLM_TIMEOUT_MS: '20000' },
    plansFile: writePlansFile(shippedPlans()),
  })
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.reset()
  api.reply = REPLY
  api.finishReason = 'stop'
})
afterAll(async () => {
  await t.close()
  await api.close()
})

const post = (session: Session, url: string, payload?: object) =>
  t.injectWithLogin({ method: 'POST', url, ...(payload ? { payload } : {}) }, session)

async function newChat(session?: Session) {
  const user = session ?? (await t.login())
  const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in, {{user}}.' })
  const res = await post(user, '/api/createSession', { roleId })
  expect(res.statusCode).toBe(200)
  return { user, sessionId: res.json().data.id as string }
}

const setSettings = (user: Session, payload: object) => post(user, '/api/session/settings/update', payload)
const detailOf = async (user: Session, sessionId: string, chatModelId?: string) =>
  (await post(user, '/api/session', { sessionId, chatModelId })).json().data
/** What the model double received on its last reply request. */
const lastAsked = () => {
  const body = api.requests.filter((r) => r.stream).at(-1)
  return { temperature: body?.temperature, max_tokens: body?.max_tokens }
}

describe('bounds in /api/models', () => {
  it('shows each model’s bounds and default, and null where the operator forbids changes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/models' })
    const byId = Object.fromEntries(
      (res.json().data.models as { id: string; userSettings: unknown }[]).map((m) => [m.id, m.userSettings]),
    )
    expect(byId['tavern-8b']).toEqual({
      temperature: { min: 0, max: 1.5, default: 0.7 },
      replyTokens: { min: 64, max: 1024, default: 1024 },
    })
    expect(byId.narrow).toEqual({
      temperature: { min: 0.2, max: 0.8, default: 0.5 },
      replyTokens: { min: 100, max: 250, default: 300 },
    })
    expect(byId.locked).toEqual({ temperature: null, replyTokens: null })
  })
})

describe('POST /api/session/settings/update', () => {
  it('stores the chat’s choices, shows them in the session and uses them for every generation', async () => {
    const { user, sessionId } = await newChat()
    expect((await detailOf(user, sessionId)).settings).toEqual({ temperature: null, replyTokens: null, language: null })

    const res = await setSettings(user, { sessionId, temperature: 1.25, replyTokens: 200 })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toEqual({ temperature: 1.25, replyTokens: 200, language: null })
    const detail = await detailOf(user, sessionId)
    expect(detail.settings).toEqual({ temperature: 1.25, replyTokens: 200, language: null })
    // The reply length is reserved out of the window: the prompt's budget shrinks with it.
    expect(detail.context.replyReserveTokens).toBe(200)
    expect(detail.context.budgetTokens).toBe(detail.context.windowTokens - 200)

    // Send.
    expect(
      (await post(user, '/api/chat', { sessionId, message: 'Evening.', chatModelId: 'tavern-8b' })).statusCode,
    ).toBe(200)
    expect(lastAsked()).toEqual({ temperature: 1.25, max_tokens: 200 })
    // Regenerate (a new alternative, a swipe), streamed.
    api.reset()
    api.finishReason = 'length'
    const regenerated = await post(user, '/api/chat/regenerate/stream', { sessionId })
    expect(regenerated.body).toContain('event: done')
    expect(lastAsked()).toEqual({ temperature: 1.25, max_tokens: 200 })
    // Continue the reply cut at its length.
    api.reset()
    api.finishReason = 'stop'
    api.reply = ' Then she turns to the sea.'
    const continued = await post(user, '/api/chat/continue', { sessionId })
    expect(continued.statusCode, continued.body).toBe(200)
    expect(lastAsked()).toEqual({ temperature: 1.25, max_tokens: 200 })
  })

  it('resets to the model’s defaults with null', async () => {
    const { user, sessionId } = await newChat()
    await setSettings(user, { sessionId, temperature: 0.1, replyTokens: 100 })
    const res = await setSettings(user, { sessionId, temperature: null, replyTokens: null })
    expect(res.json().data).toEqual({ temperature: null, replyTokens: null, language: null })
    await post(user, '/api/chat', { sessionId, message: 'Evening.', chatModelId: 'tavern-8b' })
    // The model's own temperature; the reply length is the default cap, within a quarter of the free plan's 4K.
    const asked = lastAsked()
    expect(asked.temperature).toBe(0.7)
    expect(asked.max_tokens).toBe((await detailOf(user, sessionId)).context.replyReserveTokens)
    expect(asked.max_tokens).not.toBe(100)
  })

  it('refuses values outside the bounds of the chat’s model with a 400, changing nothing', async () => {
    const { user, sessionId } = await newChat()
    await setSettings(user, { sessionId, temperature: 0.9, replyTokens: 500 })
    for (const [payload, field, min, max] of [
      [{ temperature: 1.6, replyTokens: 500 }, 'temperature', 0, 1.5],
      [{ temperature: -0.1, replyTokens: 500 }, 'temperature', 0, 1.5],
      [{ temperature: 0.9, replyTokens: 2000 }, 'replyTokens', 64, 1024],
      [{ temperature: 0.9, replyTokens: 10 }, 'replyTokens', 64, 1024],
      // Within the first model's bounds but not the one chosen in the chat.
      [{ temperature: 0.9, replyTokens: 500, chatModelId: 'narrow' }, 'temperature', 0.2, 0.8],
      [{ temperature: 0.5, replyTokens: 500, chatModelId: 'narrow' }, 'replyTokens', 100, 250],
    ] as const) {
      const res = await setSettings(user, { sessionId, ...payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json()).toMatchObject({ error: 'CHAT_SETTING_OUT_OF_BOUNDS', details: { field, min, max } })
    }
    const locked = await setSettings(user, { sessionId, temperature: 0.6, replyTokens: null, chatModelId: 'locked' })
    expect(locked.statusCode).toBe(400)
    expect(locked.json()).toMatchObject({ error: 'CHAT_SETTING_LOCKED', details: { field: 'temperature' } })
    // Not numbers: the schema's refusal.
    expect((await setSettings(user, { sessionId, temperature: 'hot', replyTokens: null })).statusCode).toBe(400)
    expect((await setSettings(user, { sessionId, temperature: null, replyTokens: 1.5 })).statusCode).toBe(400)
    expect((await detailOf(user, sessionId)).settings).toEqual({ temperature: 0.9, replyTokens: 500, language: null })
  })

  it('answers 404 for another user’s chat, whatever the values, and leaves it alone', async () => {
    const { user, sessionId } = await newChat()
    await setSettings(user, { sessionId, temperature: 0.3, replyTokens: 150 })
    const stranger = await t.login()
    for (const payload of [
      { temperature: 1, replyTokens: 300 },
      { temperature: 9, replyTokens: 1 },
    ]) {
      const res = await setSettings(stranger, { sessionId, ...payload })
      expect(res.statusCode).toBe(404)
      expect(res.json().error).toBe('INVALID_SESSION')
    }
    expect(
      (await setSettings(stranger, { sessionId: 'not-a-uuid', temperature: 1, replyTokens: null })).statusCode,
    ).toBe(404)
    expect((await detailOf(user, sessionId)).settings).toEqual({ temperature: 0.3, replyTokens: 150, language: null })
  })
})

describe('clamped to the bounds of the model in use', () => {
  it('narrows the chat’s choices to another model’s bounds, and ignores them where the operator forbids changes', async () => {
    const { user, sessionId } = await newChat()
    await setSettings(user, { sessionId, temperature: 1.4, replyTokens: 900 })
    await post(user, '/api/chat', { sessionId, message: 'One.', chatModelId: 'narrow' })
    expect(lastAsked()).toEqual({ temperature: 0.8, max_tokens: 250 })
    await post(user, '/api/chat', { sessionId, message: 'Two.', chatModelId: 'locked' })
    expect(lastAsked()).toEqual({ temperature: 0.6, max_tokens: 400 })
    // The choice itself is kept: back on the first model it applies in full.
    await post(user, '/api/chat', { sessionId, message: 'Three.', chatModelId: 'tavern-8b' })
    expect(lastAsked()).toEqual({ temperature: 1.4, max_tokens: 900 })
  })

  it('clamps a choice stored under wider bounds than the operator allows now', async () => {
    const { user, sessionId } = await newChat()
    // As if the operator had allowed up to 2 and 4000 when the user chose them.
    await t.database.db
      .update(chatSessions)
      .set({ temperature: 1.9, replyTokens: 4000 })
      .where(eq(chatSessions.id, sessionId))
    await post(user, '/api/chat', { sessionId, message: 'Evening.', chatModelId: 'tavern-8b' })
    const asked = lastAsked()
    expect(asked.temperature).toBe(1.5)
    // 1024 at most; the free plan's 4K window keeps a quarter of itself at most for the reply.
    expect(asked.max_tokens).toBeLessThanOrEqual(1024)
    expect(asked.max_tokens).toBe((await detailOf(user, sessionId, 'tavern-8b')).context.replyReserveTokens)
  })
})
