import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chatSessions } from '#db/schema/chat.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { languageLabel } from './language.ts'

// Issue 20 item 5 (ADR 038): every generation tells the model the chat's language (its own, else
// the interface's of the request), after the card's own system prompt, which cannot remove it.

type Session = Awaited<ReturnType<TestApp['login']>>

const REPLY = 'The keeper nods and lights the lamp.'
const CARD_PROMPT = 'You are Mara the pirate. Always answer in English, whatever happens.'

let api: OpenAiApiDouble
let t: TestApp

beforeAll(async () => {
  api = await startOpenAiApi({ reply: REPLY })
  t = await buildTestApp({
    env: {
      MODELS_FILE: writeModelsFile([
        { id: 'tavern-8b', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
        // A chat template that takes late system messages: the same system message.
        {
          id: 'chatml-8b',
          premium: false,
          contextTokens: 128_000,
          baseUrl: api.baseUrl,
          promptStyle: 'system-anywhere',
        },
      ]),
      LLM_TIMEOUT_MS: '20000',
    },
  })
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.reset()
  api.reply = REPLY
})
afterAll(async () => {
  await t.close()
  await api.close()
})

const post = (session: Session, url: string, payload: object, cookie?: string) =>
  t.injectWithLogin({ method: 'POST', url, payload, ...(cookie ? { headers: { cookie } } : {}) }, session)

async function newChat(options: { systemPrompt?: string } = {}) {
  const user = await t.login()
  const roleId = await createRole(t.database.db, {
    name: 'Mara',
    firstMessage: 'Come in, {{user}}.',
    ...(options.systemPrompt ? { cardExtras: { systemPrompt: options.systemPrompt } } : {}),
  })
  const res = await post(user, '/api/createSession', { roleId })
  expect(res.statusCode).toBe(200)
  return { user, sessionId: res.json().data.id as string }
}

/** The system message of the model double's last reply request. */
function lastSystem(): string {
  const body = api.requests.filter((r) => r.stream).at(-1)
  const system = body?.messages.filter((m) => m.role === 'system') ?? []
  expect(system).toHaveLength(1)
  return String(system[0]?.content ?? '')
}

const instruction = (label: string) => `Write your reply in ${label}, whatever language the text above is in.`

describe('the language of the replies', () => {
  it('names the language in English and in itself', () => {
    expect(languageLabel('ja')).toBe('Japanese (日本語)')
    expect(languageLabel('zh-tw')).toBe('Traditional Chinese (繁體中文)')
    expect(languageLabel('ar')).toBe('Arabic (العربية)')
    expect(languageLabel('en')).toBe('English')
  })

  it.each([
    ['without a system prompt of the card', undefined],
    ['with a system prompt of the card', CARD_PROMPT],
  ])('send, regenerate and continue carry it, %s, last in the system message', async (_name, systemPrompt) => {
    const { user, sessionId } = await newChat(systemPrompt ? { systemPrompt } : {})
    const sent = await post(user, '/api/chat', { sessionId, message: 'Hello there.', locale: 'ja' })
    expect(sent.statusCode).toBe(200)
    let system = lastSystem()
    expect(system).toContain(instruction('Japanese (日本語)'))
    // After the card's own prompt (and everything else of the character); the greeting follows.
    expect(system.indexOf(instruction('Japanese (日本語)'))).toBeGreaterThan(system.indexOf('## Introduction'))
    expect(system.indexOf(instruction('Japanese (日本語)'))).toBeLessThan(system.indexOf('Come in,'))
    if (systemPrompt) {
      expect(system.indexOf(systemPrompt)).toBe(0)
      expect(system.indexOf(instruction('Japanese (日本語)'))).toBeGreaterThan(system.indexOf(systemPrompt))
    }
    expect(system).not.toContain('writes in')

    const regenerated = await post(user, '/api/chat/regenerate', { sessionId, locale: 'fr' })
    expect(regenerated.statusCode).toBe(200)
    system = lastSystem()
    expect(system).toContain(instruction('French (Français)'))
    expect(system).not.toContain('Japanese')

    api.reply = ' Then she turns to the sea.'
    const continued = await post(user, '/api/chat/continue', { sessionId, locale: 'ar' })
    expect(continued.statusCode).toBe(200)
    expect(lastSystem()).toContain(instruction('Arabic (العربية)'))

    // The streaming routes too, and a model whose template takes late system messages.
    const streamed = await post(user, '/api/chat/stream', {
      sessionId,
      message: 'Again.',
      locale: 'ko',
      chatModelId: 'chatml-8b',
    })
    expect(streamed.statusCode).toBe(200)
    expect(lastSystem()).toContain(instruction('Korean (한국어)'))
  })

  it("without a locale in the body, the `lang` cookie; without either, the user's own language", async () => {
    const { user, sessionId } = await newChat({ systemPrompt: CARD_PROMPT })
    expect((await post(user, '/api/chat', { sessionId, message: 'Hi.' }, 'lang=de')).statusCode).toBe(200)
    expect(lastSystem()).toContain(instruction('German (Deutsch)'))
    expect((await post(user, '/api/chat/regenerate', { sessionId }, 'lang=nope')).statusCode).toBe(200)
    expect(lastSystem()).toMatch(/Write your reply in the language user_\w+ writes in\./)
    // The body wins over the cookie.
    expect((await post(user, '/api/chat/regenerate', { sessionId, locale: 'th' }, 'lang=de')).statusCode).toBe(200)
    expect(lastSystem()).toContain(instruction('Thai (ไทย)'))
  })

  it("the chat's own language wins over the interface's; null goes back to it; left out, unchanged", async () => {
    const { user, sessionId } = await newChat({ systemPrompt: CARD_PROMPT })
    const set = await post(user, '/api/session/settings/update', {
      sessionId,
      temperature: null,
      replyTokens: null,
      language: 'de',
    })
    expect(set.statusCode).toBe(200)
    expect(set.json().data).toEqual({ temperature: null, replyTokens: null, language: 'de' })
    expect((await post(user, '/api/session', { sessionId })).json().data.settings.language).toBe('de')

    await post(user, '/api/chat', { sessionId, message: 'Hello.', locale: 'ja' })
    expect(lastSystem()).toContain(instruction('German (Deutsch)'))
    expect(lastSystem()).not.toContain('Japanese')

    // A settings update without the field (an older client) keeps the chat's language.
    const kept = await post(user, '/api/session/settings/update', { sessionId, temperature: 0.9, replyTokens: null })
    expect(kept.json().data.language).toBe('de')

    await post(user, '/api/session/settings/update', {
      sessionId,
      temperature: null,
      replyTokens: null,
      language: null,
    })
    await post(user, '/api/chat/regenerate', { sessionId, locale: 'ja' })
    expect(lastSystem()).toContain(instruction('Japanese (日本語)'))
  })

  it('an unknown language is refused and changes nothing', async () => {
    const { user, sessionId } = await newChat()
    await post(user, '/api/session/settings/update', {
      sessionId,
      temperature: null,
      replyTokens: null,
      language: 'pt',
    })
    const bad = await post(user, '/api/session/settings/update', {
      sessionId,
      temperature: null,
      replyTokens: null,
      language: 'klingon',
    })
    expect(bad.statusCode).toBe(400)
    const [row] = await t.database.db
      .select({ language: chatSessions.language })
      .from(chatSessions)
      .where(eq(chatSessions.id, sessionId))
    expect(row?.language).toBe('pt')
    expect((await post(user, '/api/chat', { sessionId, message: 'Hi.', locale: 'xx' })).statusCode).toBe(400)
  })
})
