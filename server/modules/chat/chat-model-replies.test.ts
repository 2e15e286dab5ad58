import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ChatMessage, ChatStreamEvent } from '#contracts/chat.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { parseEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 18 items 4, 5, 6 and 8 through the chat routes (ADR 031): reasoning streamed apart and
// never stored, limits that fit streaming, replies cut at their length, failures with their codes.

type Session = Awaited<ReturnType<TestApp['login']>>

const REPLY = 'The keeper nods and lights the lamp.'
const PREMIUM_COST = 5

let api: OpenAiApiDouble
let t: TestApp
const logs: Record<string, unknown>[] = []

beforeAll(async () => {
  api = await startOpenAiApi({ reply: REPLY })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
    {
      id: 'grand-70b',
      name: 'Grand 70B',
      premium: true,
      diamondsPerMessage: PREMIUM_COST,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
    },
    // Its own time limits (ADR 035) over the LLM_* ones below.
    { id: 'patient-8b', premium: false, contextTokens: 128_000, firstTokenTimeoutMs: 3_000, baseUrl: api.baseUrl },
    { id: 'hasty-8b', premium: false, contextTokens: 128_000, idleTimeoutMs: 100, baseUrl: api.baseUrl },
    // A small context, so that a corrected count shows in the window (the plan's memory is larger).
    { id: 'small-8b', model: 'small', premium: false, contextTokens: 2048, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({
    env: {
      MODELS_FILE: modelsFile,
      LLM_TIMEOUT_MS: '20000',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '400',
      LLM_IDLE_TIMEOUT_MS: '400',
    },
    plansFile: writePlansFile(shippedPlans()),
    logStream: { write: (line) => logs.push(JSON.parse(line)) },
  })
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.reset()
  api.reply = REPLY
  api.reasoning = ''
  api.finishReason = 'stop'
  api.tokenDelayMs = 0
  api.firstTokenDelayMs = 0
  api.promptTokens = undefined
  logs.length = 0
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

async function streamed(user: Session, payload: object) {
  const res = await post(user, '/api/chat/stream', { chatModelId: 'tavern-8b', ...payload })
  return parseEvents(res.body) as ChatStreamEvent[]
}

async function messagesOf(user: Session, sessionId: string): Promise<ChatMessage[]> {
  return (await post(user, '/api/messages', { sessionId, limit: 100 })).json().data.items
}

async function proUser(): Promise<Session> {
  const session = await t.login()
  const { orderId } = (await post(session, '/api/subscription', { planId: 'pro' })).json().data
  expect((await post(session, '/api/payment/sandbox', { orderId, outcome: 'paid' })).statusCode).toBe(200)
  return session
}
const balanceOf = async (session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number

describe('reasoning', () => {
  it('streams as reasoning events before the reply and is stored nowhere', async () => {
    const { user, sessionId } = await newChat()
    api.reasoning = 'She is tired; keep it short.'
    const events = await streamed(user, { sessionId, message: 'Evening.' })
    const names = events.map((e) => e.event)
    expect(names.indexOf('reasoning')).toBeGreaterThan(names.indexOf('start'))
    expect(names.indexOf('reasoning')).toBeLessThan(names.indexOf('delta'))
    const thought = events.flatMap((e) => (e.event === 'reasoning' ? [e.data.text] : [])).join('')
    expect(thought).toBe(api.reasoning)
    const reply = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('')
    expect(reply).toBe(REPLY)
    const stored = await messagesOf(user, sessionId)
    expect(stored[0]).toMatchObject({ author: 'assistant', content: REPLY, status: 'complete' })
    expect(JSON.stringify(stored)).not.toContain('tired')
  })

  it('fails a reply that is only reasoning with its own retryable code, keeping the message only', async () => {
    const { user, sessionId } = await newChat()
    api.reasoning = 'Hmm, what would Mara say to that'
    api.reply = ''
    api.finishReason = 'length'
    const events = await streamed(user, { sessionId, message: 'Evening.' })
    expect(events.filter((e) => e.event === 'reasoning').length).toBeGreaterThan(0)
    expect(events.some((e) => e.event === 'delta')).toBe(false)
    expect(events.at(-1)).toMatchObject({
      event: 'error',
      data: { code: 'MODEL_REPLY_ONLY_REASONING', reason: 'reasoning_only', retryable: true, partialKept: false },
    })
    const stored = await messagesOf(user, sessionId)
    // Newest first: the message, then only the greeting.
    expect(stored.map((m) => m.author)).toEqual(['user', 'assistant'])
    expect(stored[0]?.content).toBe('Evening.')
    expect(JSON.stringify(stored)).not.toContain('what would Mara')
    expect(
      logs.some((l) => l.level === 40 && l.reason === 'reasoning_only' && String(l.hint).includes('maxReplyTokens')),
    ).toBe(true)
    // The same through the JSON route: its code and message.
    const res = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'tavern-8b' })
    expect(res.statusCode).toBe(502)
    expect(res.json()).toMatchObject({ error: 'MODEL_REPLY_ONLY_REASONING', details: { retryable: true } })
    // Once the model writes a reply, the retry answers the same message.
    api.reply = REPLY
    const retried = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'tavern-8b' })
    expect(retried.json().data.reply).toMatchObject({ content: REPLY })
  })

  it('keeps <think> blocks of the content out of the stored reply', async () => {
    const { user, sessionId } = await newChat()
    api.reply = '<think>Greet back.</think>Evening to you.'
    await streamed(user, { sessionId, message: 'Evening.' })
    expect((await messagesOf(user, sessionId))[0]?.content).toBe('Evening to you.')
  })
})

describe('time limits', () => {
  it('fails a reply whose first token does not come in time with 504, keeping the message', async () => {
    const { user, sessionId } = await newChat()
    api.firstTokenDelayMs = 5_000
    const started = performance.now()
    const res = await post(user, '/api/chat', { sessionId, message: 'Anyone?', chatModelId: 'tavern-8b' })
    expect(res.statusCode).toBe(504)
    expect(res.json()).toMatchObject({ error: 'MODEL_ERROR', details: { kind: 'timeout', retryable: true } })
    expect(performance.now() - started).toBeLessThan(3_000)
  })

  it('lets a slow, steady reply finish, however long it takes in all', async () => {
    const { user, sessionId } = await newChat()
    api.tokenDelayMs = 150
    const res = await post(user, '/api/chat', { sessionId, message: 'Tell me.', chatModelId: 'tavern-8b' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.reply).toMatchObject({ content: REPLY, status: 'complete' })
  })
})

describe("a model's own time limits (MODELS_FILE)", () => {
  it('wait longer for the first token, or less between tokens, than the LLM_* limits', async () => {
    const { user, sessionId } = await newChat()
    api.firstTokenDelayMs = 1_000
    const late = await post(user, '/api/chat', { sessionId, message: 'Anyone?', chatModelId: 'tavern-8b' })
    expect(late.json()).toMatchObject({ error: 'MODEL_ERROR', details: { kind: 'timeout' } })
    const patient = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'patient-8b' })
    expect(patient.statusCode).toBe(200)
    expect(patient.json().data.reply).toMatchObject({ content: REPLY, status: 'complete' })
    api.firstTokenDelayMs = 0
    api.tokenDelayMs = 250
    const steady = await post(user, '/api/chat', { sessionId, message: 'Slowly.', chatModelId: 'tavern-8b' })
    expect(steady.statusCode).toBe(200)
    const hasty = await post(user, '/api/chat', { sessionId, message: 'Again.', chatModelId: 'hasty-8b' })
    expect(hasty.statusCode).toBe(504)
    expect(hasty.json().details).toMatchObject({ kind: 'timeout', retryable: true })
  })
})

describe("the server's prompt count", () => {
  it('is asked for and corrects ours: the window shrinks when the server counts more', async () => {
    const { user, sessionId } = await newChat()
    const send = (message: string) => post(user, '/api/chat', { sessionId, message, chatModelId: 'small-8b' })
    const first = (await send('Hello there, keeper.')).json().data.context.windowTokens as number
    expect(api.requests.at(-1)?.stream_options).toEqual({ include_usage: true })
    // The server counts the prompt three times what we estimated (a vocabulary unlike ours).
    api.promptTokens = 3_000
    await send('Is the lamp lit?')
    const after = (await send('And the door?')).json().data.context.windowTokens as number
    expect(after).toBeLessThan(first)
    // Back to a count like ours: the correction moves back up, smoothed.
    api.promptTokens = 1
    await send('Good.')
    const later = (await send('Good night.')).json().data.context.windowTokens as number
    expect(later).toBeGreaterThan(after)
  })
})

describe('replies cut at their length', () => {
  it('are stored as cut and, on a premium model, charged like a complete reply', async () => {
    const user = await proUser()
    const { sessionId } = await newChat(user)
    const before = await balanceOf(user)
    api.finishReason = 'length'
    const events = await streamed(user, { sessionId, message: 'Go on.', chatModelId: 'grand-70b' })
    const done = events.find((e) => e.event === 'done')
    expect(done?.event === 'done' && done.data.reply).toMatchObject({ content: REPLY, status: 'cut' })
    expect(done?.event === 'done' && done.data.diamondsSpent).toBe(PREMIUM_COST)
    expect(await balanceOf(user)).toBe(before - PREMIUM_COST)
    expect((await messagesOf(user, sessionId))[0]).toMatchObject({ status: 'cut' })
  })
})

describe('Continue', () => {
  it('extends a cut reply in place: the partial reply goes last as the assistant turn, paid again', async () => {
    const user = await proUser()
    const { sessionId } = await newChat(user)
    api.finishReason = 'length'
    await streamed(user, { sessionId, message: 'Go on.', chatModelId: 'grand-70b' })
    const before = await balanceOf(user)
    api.finishReason = 'stop'
    api.reply = ' Then she turns to the sea.'
    const res = await post(user, '/api/chat/continue/stream', { sessionId, chatModelId: 'grand-70b' })
    const events = parseEvents(res.body)
    const deltas = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('')
    expect(deltas).toBe(' Then she turns to the sea.')
    const asked = api.requests.at(-1)?.messages ?? []
    expect(asked.at(-1)).toEqual({ role: 'assistant', content: REPLY })
    expect(asked.at(-2)).toMatchObject({ role: 'user', content: 'Go on.' })
    const [reply] = await messagesOf(user, sessionId)
    expect(reply).toMatchObject({
      author: 'assistant',
      content: `${REPLY} Then she turns to the sea.`,
      status: 'complete',
      swipeCount: 1,
      diamondsSpent: 2 * PREMIUM_COST,
    })
    expect(await balanceOf(user)).toBe(before - PREMIUM_COST)
  })

  it('refuses when the last message is not a reply, storing nothing', async () => {
    const { user, sessionId } = await newChat()
    const greetingOnly = await post(user, '/api/chat/continue', { sessionId })
    expect(greetingOnly.statusCode).toBe(400)
    api.fail(500)
    await post(user, '/api/chat', { sessionId, message: 'Hello?', chatModelId: 'tavern-8b' })
    const res = await post(user, '/api/chat/continue', { sessionId })
    expect(res.statusCode).toBe(400)
    expect(api.requests).toHaveLength(1)
    expect((await messagesOf(user, sessionId)).map((m) => m.author)).toEqual(['user', 'assistant'])
  })
})

describe('model failures', () => {
  it('name what went wrong, say whether a retry helps, and log the reason at warn', async () => {
    const { user, sessionId } = await newChat()
    api.fail(404, 'The model `tavern-8b` does not exist.')
    const res = await post(user, '/api/chat', { sessionId, message: 'Hello?', chatModelId: 'tavern-8b' })
    expect(res.statusCode).toBe(502)
    expect(res.json()).toMatchObject({
      error: 'MODEL_NOT_FOUND',
      details: { kind: 'provider', reason: 'model_not_found', retryable: false, partialKept: false },
    })
    const warned = logs.find((l) => l.msg === 'chat reply failed')
    expect(warned).toMatchObject({ level: 40, reason: 'model_not_found' })
    expect(String(warned?.hint)).toMatch(/MODELS_FILE/)
    expect(JSON.stringify(warned)).toContain('does not exist')

    api.failWith(
      429,
      { error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } },
      {
        'retry-after': '20',
      },
    )
    const retry = await post(user, '/api/chat/regenerate/stream', { sessionId })
    const error = parseEvents(retry.body).find((e) => e.event === 'error')
    expect(error?.data).toMatchObject({
      code: 'MODEL_RATE_LIMITED',
      reason: 'rate_limited',
      retryable: true,
      retryAfterSeconds: 20,
    })
  })

  it('trims and resends once a prompt the server refuses as too long', async () => {
    const { user, sessionId } = await newChat()
    api.failContextLikeLlamaCpp(3000, 2048)
    const res = await post(user, '/api/chat', { sessionId, message: 'Still here.', chatModelId: 'tavern-8b' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.reply).toMatchObject({ content: REPLY, status: 'complete' })
    expect(api.requests).toHaveLength(2)
  })

  it('says context too long when the trimmed prompt is refused too (no retry offered)', async () => {
    const { user, sessionId } = await newChat()
    api.failContextLikeLlamaCpp(3000, 2048)
    api.failContextLikeLlamaCpp(2500, 2048)
    const res = await post(user, '/api/chat', { sessionId, message: 'Still here.', chatModelId: 'tavern-8b' })
    expect(res.json()).toMatchObject({
      error: 'MODEL_CONTEXT_TOO_LONG',
      details: { reason: 'context_too_long', retryable: false },
    })
    expect(api.requests).toHaveLength(2)
    expect((await messagesOf(user, sessionId))[0]).toMatchObject({ author: 'user', content: 'Still here.' })
  })
})
