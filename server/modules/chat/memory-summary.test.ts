import { eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CHAT_SUMMARY_RETRY_LIMIT, MEMORY_NOTE_MAX_LENGTH } from '#contracts/chat.ts'
import { chatSessions } from '#db/schema/chat.ts'
import { SAFETY_MARGIN } from '#server/modules/models/model-server-info.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import type { SessionView } from './chat.repo.ts'
import { createMemorySummary, SUMMARY_GIVE_UP_PAUSE_MS } from './memory-summary.ts'
import { createModelActivity, YIELD_GRACE_MS } from './model-activity.ts'
import type { HistoryMessage, Prompt } from './prompt.ts'
import { buildSummaryRequest, SUMMARY_OUTPUT_SHARE, summaryBudget, summaryPrompt } from './summary-request.ts'
import { createTurnSlots } from './turn-slots.ts'

// These tests call the synchronous counting code directly; the app awaits this on its async paths.
await tokenizerReady()

// --- the request sized to the model's context --------------------------------------------------

/** What modelContext tells for a Llama-family server of `n` tokens and English text (×1.2, ADR 030). */
const fitOf = (n: number, ratio = 1.2) => ({
  serverContextTokens: n,
  contextTokens: Math.floor((n * (1 - SAFETY_MARGIN)) / ratio),
  maxReplyTokens: undefined,
})
const names = { characterName: 'Mara', userName: 'Sam' }
const line = 'The waves crash on the rocks below the lamp room while the storm keeps rising. '
const rows: HistoryMessage[] = Array.from({ length: 30 }, (_, i) => {
  const content = `Message ${i + 1}. ${line.repeat(6).trim()}`
  return { id: i + 1, author: i % 2 ? 'assistant' : 'user', content, tokens: countTokens(content) }
})
const longNote = 'Sam and Mara met at the lighthouse. '.repeat(200).slice(0, MEMORY_NOTE_MAX_LENGTH)

describe('a summary sized to the model context', () => {
  it.each([256, 512, 4096])(
    'context %i: the summary takes at most a quarter, prompt and summary fit within the margin',
    (n) => {
      const fit = fitOf(n)
      const budget = summaryBudget(fit)
      expect(budget.outputTokens).toBeGreaterThan(0)
      expect(budget.outputTokens).toBeLessThanOrEqual(Math.min(600, n * SUMMARY_OUTPUT_SHARE))
      const request = buildSummaryRequest(names, longNote, rows, budget)
      expect(request).not.toBeNull()
      if (!request) return
      expect(request.covered.length).toBeGreaterThan(0)
      expect(request.promptTokens).toBeLessThanOrEqual(budget.inputTokens)
      // In the server's tokens (our count × the ratio) with the summary: within the context less the margin.
      expect(Math.ceil(request.promptTokens * 1.2) + budget.outputTokens).toBeLessThanOrEqual(n * (1 - SAFETY_MARGIN))
      // The oldest messages first, in order; the newest that do not fit wait for the next call.
      expect(request.covered.map((r) => r.id)).toEqual(rows.slice(0, request.covered.length).map((r) => r.id))
    },
  )

  it('a 256 context: the one message too long for it is cut, the note cut to its share, the summary short', () => {
    const budget = summaryBudget(fitOf(256))
    const request = buildSummaryRequest(names, longNote, rows, budget)
    expect(request?.covered).toHaveLength(1)
    expect(request?.covered[0]?.content.length).toBeLessThan(rows[0]?.content.length ?? 0)
    expect(String(request?.messages[0]?.content)).toMatch(/at most \d\d words/)
    expect(String(request?.messages[1]?.content)).toContain('Memory so far:\nSam and Mara met')
  })

  it('a 4096 context reads many messages, and never more than 3,000 tokens of them', () => {
    const budget = summaryBudget(fitOf(4096))
    expect(budget.outputTokens).toBe(600)
    const many = buildSummaryRequest(names, '', rows, budget)
    expect(many?.covered.length).toBeGreaterThan(10)
    const huge = buildSummaryRequest(names, '', rows, summaryBudget(fitOf(128_000)))
    expect(huge?.promptTokens).toBeLessThan(3300)
  })

  it('a refusal for length shrinks the prompt; an operator cap on replies caps the summary', () => {
    expect(summaryBudget(fitOf(512), 0.75).inputTokens).toBeLessThan(summaryBudget(fitOf(512)).inputTokens)
    expect(summaryBudget({ ...fitOf(4096), maxReplyTokens: 100 }).outputTokens).toBe(100)
  })

  it('asks for a summary of the given messages with the names and the earlier note', () => {
    const [system, user] = summaryPrompt({
      ...names,
      note: 'Sam boarded.',
      messages: [
        { author: 'user', content: 'Where to?' },
        { author: 'assistant', content: 'North.' },
      ],
    })
    expect(system?.content).toContain('between Sam and Mara')
    expect(system?.content).toContain('at most 250 words')
    expect(user?.content).toBe('Memory so far:\nSam boarded.\n\nNew messages:\nSam: Where to?\n\nMara: North.')
    expect(system?.content).toContain('in the language of the conversation')
  })

  it("asks for the summary in the chat's language when it is known (ADR 038)", () => {
    const [system] = summaryPrompt({ ...names, language: 'ja', note: '', messages: [] })
    expect(system?.content).toContain('the past tense, in Japanese (日本語), in at most')
    expect(system?.content).not.toContain('language of the conversation')
  })
})

// --- scheduling --------------------------------------------------------------------------------

const sessionWith = (memoryThroughId: number | null, failures = 0, failedAt: Date | null = null) =>
  ({
    id: 's1',
    userId: 'u1',
    memoryThroughId,
    summaryFailures: failures,
    summaryFailedAt: failedAt,
  }) as unknown as SessionView

const prompt = (trimmed: boolean, oldestKeptId: number): Prompt => ({
  messages: [],
  usedTokens: 0,
  included: [{ id: oldestKeptId, author: 'user', content: 'x', tokens: 1 }],
  trimmed,
})

function summaryWith(options: { enqueueFails?: boolean } = {}) {
  const queued: { kind: string; payload: unknown; key?: string | undefined; runAt?: Date | undefined }[] = []
  const logged: string[] = []
  const slots = createTurnSlots()
  const memory = createMemorySummary({
    repo: {} as never,
    summaryModel: {} as ModelConfig,
    jobs: {
      enqueue: async (kind, payload, enqueueOptions) => {
        if (options.enqueueFails) throw new Error('database away')
        queued.push({ kind, payload, key: enqueueOptions?.key, runAt: enqueueOptions?.runAt })
        return true as never
      },
      retryNow: async () => false,
    },
    slots,
    activity: createModelActivity(),
    timeoutMs: 1000,
    log: (_info, msg) => logged.push(msg),
  })
  return { memory, queued, logged, slots }
}

describe('scheduling a memory summary after a reply', () => {
  it('queues one job per session when messages left the window and the note does not cover them', async () => {
    const { memory, queued } = summaryWith()
    memory.schedule(sessionWith(null), prompt(true, 40))
    memory.schedule(sessionWith(10), prompt(true, 40))
    await Promise.resolve()
    const job = {
      kind: 'chat-summary',
      payload: { sessionId: 's1', userId: 'u1', keptFromId: 40, language: null },
      key: 'summary:s1',
    }
    expect(queued).toEqual([
      { ...job, runAt: undefined },
      { ...job, runAt: undefined },
    ])
  })

  it('queues nothing when everything fits, when the note already covers what left, or after shutdown', async () => {
    const { memory, queued, slots } = summaryWith()
    memory.schedule(sessionWith(null), prompt(false, 40))
    memory.schedule(sessionWith(39), prompt(true, 40))
    await slots.close()
    memory.schedule(sessionWith(null), prompt(true, 40))
    await Promise.resolve()
    expect(queued).toEqual([])
  })

  it('after the job gave up, the next reply queues it again after a pause; then at once', async () => {
    const { memory, queued } = summaryWith()
    const failedAt = new Date(Date.now() - 60_000)
    memory.schedule(sessionWith(null, 4, failedAt), prompt(true, 40))
    memory.schedule(sessionWith(null, 4, new Date(Date.now() - SUMMARY_GIVE_UP_PAUSE_MS - 1000)), prompt(true, 40))
    await Promise.resolve()
    expect(queued[0]?.runAt?.getTime()).toBe(failedAt.getTime() + SUMMARY_GIVE_UP_PAUSE_MS)
    expect(queued[1]?.runAt).toBeUndefined()
  })

  it('a job that cannot be queued is logged, never thrown at the reply', async () => {
    const { memory, logged, slots } = summaryWith({ enqueueFails: true })
    expect(() => memory.schedule(sessionWith(null), prompt(true, 40))).not.toThrow()
    await slots.close() // Waits for the tracked enqueue.
    expect(logged).toEqual(['memory summary could not be queued'])
  })
})

describe('model activity', () => {
  const endpoint = { baseUrl: 'http://m/v1', model: 'x' }

  it('a summary does not start while a reply is written on its endpoint; another endpoint is free', async () => {
    const activity = createModelActivity()
    const { end: done } = activity.replyStarted(endpoint)
    await expect(activity.summary(endpoint, new AbortController().signal, async () => 'ran')).rejects.toThrow(
      'a reply is being written',
    )
    await expect(
      activity.summary({ ...endpoint, model: 'other' }, new AbortController().signal, async () => 'ran'),
    ).resolves.toBe('ran')
    done()
    await expect(activity.summary(endpoint, new AbortController().signal, async () => 'ran')).resolves.toBe('ran')
  })

  it('a reply that starts aborts the summary running on its endpoint', async () => {
    const activity = createModelActivity()
    const running = activity.summary(
      endpoint,
      new AbortController().signal,
      (signal) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    )
    const started = Date.now()
    const reply = activity.replyStarted({ ...endpoint, baseUrl: 'http://m/v1/' }, 200)
    await expect(running).rejects.toMatchObject({ name: 'SummaryYielded' })
    // The reply is sent once the summary's call ended, and the server had time to let go of it.
    await reply.ready
    expect(Date.now() - started).toBeGreaterThanOrEqual(190)
    reply.end()
  })
})

// --- through the app, with the model double ----------------------------------------------------

const REPLY = 'The keeper nods and lights the lamp.'
const SUMMARY = 'MEMORY: Sam reached the lighthouse in the storm.'
const history = Array.from({ length: 40 }, (_, i) => ({
  author: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: `Message ${i + 1}. ${line.repeat(10).trim()}`,
}))

let api: OpenAiApiDouble
let t: TestApp
const logs: { level: number; msg: string; [key: string]: unknown }[] = []

beforeAll(async () => {
  api = await startOpenAiApi({ reply: (_m, body) => (body.stream ? REPLY : SUMMARY) })
  t = await buildTestApp({
    env: {
      MODELS_FILE: writeModelsFile([{ id: 'tavern-8b', premium: false, contextTokens: 4096, baseUrl: api.baseUrl }]),
      LLM_TIMEOUT_MS: '3000',
    },
    // Jobs run when the test drains them; a failed one waits until the test makes it due.
    jobQueue: { worker: false, retryDelayMs: () => 60_000 },
    logStream: { write: (text: string) => logs.push(JSON.parse(text)) },
  })
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.firstTokenDelayMs = 0
})
afterAll(async () => {
  await t?.close()
  await api?.close()
})

const post = (session: { token: string }, url: string, payload: object) =>
  t.injectWithLogin({ method: 'POST', url, payload }, session)

async function longChat() {
  const user = await t.login()
  const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in, {{user}}.' })
  const created = await post(user, '/api/createSession', { roleId })
  const sessionId = created.json().data.id as string
  await addMessages(t.database.db, sessionId, history)
  return { user, sessionId }
}

const send = (user: { token: string }, sessionId: string, message: string) =>
  post(user, '/api/chat', { sessionId, message, chatModelId: 'tavern-8b' })

/** A reply, then its summary job queued (the reply does not wait for that). */
async function sendAndQueue(user: { token: string }, sessionId: string, message: string) {
  const res = await send(user, sessionId, message)
  expect(res.statusCode).toBe(200)
  await expect
    .poll(async () => {
      const job = await summaryJob(sessionId)
      return job ? job.failed_at : 'none'
    })
    .toBe(null)
  return res
}

async function summaryJob(sessionId: string) {
  const result = await t.database.db.execute(
    sql`SELECT attempts, run_at, failed_at FROM jobs WHERE key = ${`summary:${sessionId}`} ORDER BY id DESC LIMIT 1`,
  )
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    attempts: number
    run_at: string | Date
    failed_at: string | Date | null
  }[]
  return rows[0]
}

const memoryOf = async (user: { token: string }, sessionId: string) =>
  (await post(user, '/api/session/memory', { sessionId })).json().data
const summaryRequests = () => api.requests.filter((r) => !r.stream)
const jobs = () => t.app.services.jobs

/** The summary fails `times` times in a row (each attempt made due at once). */
async function failSummary(sessionId: string, times: number) {
  for (let i = 0; i < times; i++) {
    api.fail(503)
    await jobs().retryNow(`summary:${sessionId}`)
    await jobs().drain()
  }
}

describe("the memory summary is written in the chat's language (ADR 038)", () => {
  it("the language of the reply that queued it; the chat's own language when it has one", async () => {
    const { user, sessionId } = await longChat()
    expect((await post(user, '/api/chat', { sessionId, message: 'Hello', locale: 'ja' })).statusCode).toBe(200)
    await expect.poll(async () => (await summaryJob(sessionId)) !== undefined).toBe(true)
    await jobs().drain()
    expect(summaryRequests().at(-1)?.messages[0]?.content).toContain('in Japanese (日本語)')

    // The chat's own language, set after the job was queued, wins when it runs.
    const other = await longChat()
    await post(other.user, '/api/chat', { sessionId: other.sessionId, message: 'Hello', locale: 'ja' })
    await expect.poll(async () => (await summaryJob(other.sessionId)) !== undefined).toBe(true)
    const set = await post(other.user, '/api/session/settings/update', {
      sessionId: other.sessionId,
      temperature: null,
      replyTokens: null,
      language: 'de',
    })
    expect(set.statusCode).toBe(200)
    await jobs().drain()
    const asked = summaryRequests().at(-1)?.messages[0]?.content
    expect(asked).toContain('in German (Deutsch)')
    expect(asked).not.toContain('Japanese')
  })
})

describe('the memory summary never costs the user a reply', () => {
  it('waits while a reply is written on the model, then runs after it, not counted as a failure', async () => {
    const { user, sessionId } = await longChat()
    await sendAndQueue(user, sessionId, 'Hello')
    expect(await summaryJob(sessionId)).toMatchObject({ attempts: 0 })
    // A second reply, slow, being written while the summary's job comes up.
    api.firstTokenDelayMs = 400
    const before = api.requests.length
    const second = send(user, sessionId, 'Still there?')
    await expect.poll(() => api.requests.slice(before).some((r) => r.stream)).toBe(true)
    const summariesBefore = summaryRequests().length
    expect(await jobs().drain()).toBe(1)
    // Deferred: the model was not asked, the attempt not counted, nothing recorded as a failure.
    expect(summaryRequests()).toHaveLength(summariesBefore)
    expect(await summaryJob(sessionId)).toMatchObject({ attempts: 0, failed_at: null })
    const reply = await second
    expect(reply.statusCode).toBe(200)
    expect(reply.json().data.reply.status).toBe('complete')
    const replyDone = api.timings.at(-1)?.doneAt ?? 0
    // The summary runs afterwards (made due now instead of waiting out its pause).
    api.firstTokenDelayMs = 0
    expect(await jobs().retryNow(`summary:${sessionId}`)).toBe(true)
    await jobs().drain()
    expect(await memoryOf(user, sessionId)).toMatchObject({ note: SUMMARY, summaryProblem: null })
    const summaryTiming = api.timings[api.requests.findLastIndex((r) => !r.stream)]
    expect(summaryTiming?.receivedAt).toBeGreaterThanOrEqual(replyDone)
  })

  it('a reply that starts aborts the summary running on the model; the reply completes, the summary runs again', async () => {
    const { user, sessionId } = await longChat()
    await sendAndQueue(user, sessionId, 'Hello')
    api.firstTokenDelayMs = 500
    const summariesBefore = summaryRequests().length
    const draining = jobs().drain()
    await expect.poll(() => summaryRequests().length).toBe(summariesBefore + 1)
    const summaryIndex = api.requests.findLastIndex((r) => !r.stream)
    const reply = await send(user, sessionId, 'Wait, one more thing')
    expect(reply.statusCode).toBe(200)
    expect(reply.json().data.reply).toMatchObject({ status: 'complete', content: REPLY })
    await draining
    // The summary's call was closed when the reply started: the server was free for the reply.
    expect(api.timings[summaryIndex]).toMatchObject({ closedEarly: true })
    // The reply was sent once the summary's call had ended and the server had time to let go of it.
    expect(api.timings[summaryIndex + 1]?.receivedAt).toBeGreaterThanOrEqual(
      (api.timings[summaryIndex]?.receivedAt ?? 0) + YIELD_GRACE_MS - 50,
    )
    expect(await summaryJob(sessionId)).toMatchObject({ attempts: 0, failed_at: null })
    expect((await memoryOf(user, sessionId)).summaryProblem).toBeNull()
    api.firstTokenDelayMs = 0
    await jobs().retryNow(`summary:${sessionId}`)
    await jobs().drain()
    expect((await memoryOf(user, sessionId)).note).toBe(SUMMARY)
  })

  it('a summary refused as too long is trimmed and sent again', async () => {
    const { user, sessionId } = await longChat()
    await sendAndQueue(user, sessionId, 'Hello')
    api.failContextLikeLlamaCpp(5000, 4096)
    const before = summaryRequests().length
    await jobs().drain()
    const [refused, retried] = summaryRequests().slice(before)
    expect(String(retried?.messages.at(-1)?.content).length).toBeLessThan(
      String(refused?.messages.at(-1)?.content).length,
    )
    expect(await memoryOf(user, sessionId)).toMatchObject({ note: SUMMARY, summaryProblem: null })
  })

  it('failures are counted on the session, logged at warn, shown, and reset by a summary that succeeds (Try again)', async () => {
    const { user, sessionId } = await longChat()
    await sendAndQueue(user, sessionId, 'Hello')
    await failSummary(sessionId, 1)
    // One failure: counted, not shown yet.
    const [row] = await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))
    expect(row).toMatchObject({ summaryFailures: 1, summaryFailureCode: 'overloaded' })
    expect(row?.summaryFailedAt).toBeInstanceOf(Date)
    const warned = logs.find((l) => l.msg === 'memory summary failed' && l.sessionId === sessionId)
    expect(warned).toMatchObject({ level: 40, code: 'overloaded', status: 503 })
    expect(String(warned?.hint)).toContain('overloaded')
    expect((await memoryOf(user, sessionId)).summaryProblem).toBeNull()

    // It keeps failing until the job gives up (four attempts): shown in the panel, given up.
    await failSummary(sessionId, 3)
    const memory = await memoryOf(user, sessionId)
    expect(memory.summaryProblem).toMatchObject({ failures: 4, code: 'overloaded', gaveUp: true })
    expect(Date.parse(memory.summaryProblem.lastFailedAt)).toBeGreaterThan(Date.now() - 60_000)
    expect((await summaryJob(sessionId))?.failed_at).not.toBeNull()
    // The session detail carries it too (the panel opens with it).
    expect((await post(user, '/api/session', { sessionId })).json().data.memory.summaryProblem).toMatchObject({
      failures: 4,
    })

    // Another user may not try it again.
    const stranger = await post(await t.login(), '/api/session/memory/retry', { sessionId })
    expect(stranger.statusCode).toBe(404)
    expect(stranger.json().error).toBe('INVALID_SESSION')

    // Try again: the job given up is queued again and succeeds; the notice is gone.
    const retried = await post(user, '/api/session/memory/retry', { sessionId })
    expect(retried.statusCode).toBe(200)
    expect(retried.json().data).toMatchObject({ queued: true, memory: { summaryProblem: { failures: 4 } } })
    await jobs().drain()
    expect(await memoryOf(user, sessionId)).toMatchObject({ note: SUMMARY, summaryProblem: null })
    const [after] = await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))
    expect(after).toMatchObject({ summaryFailures: 0, summaryFailedAt: null, summaryFailureCode: null })
    // Nothing waits any more: trying again queues nothing.
    expect((await post(user, '/api/session/memory/retry', { sessionId })).json().data.queued).toBe(false)
  })

  it('after the job gave up, the next reply queues the summary again, after a pause', async () => {
    const { user, sessionId } = await longChat()
    await sendAndQueue(user, sessionId, 'Hello')
    await failSummary(sessionId, 4)
    expect((await summaryJob(sessionId))?.failed_at).not.toBeNull()
    await sendAndQueue(user, sessionId, 'Are you there?')
    const next = await summaryJob(sessionId)
    expect(next).toMatchObject({ attempts: 0, failed_at: null })
    expect(new Date(next?.run_at ?? 0).getTime()).toBeGreaterThan(Date.now() + SUMMARY_GIVE_UP_PAUSE_MS - 120_000)
  })

  it('Try again is limited per user', async () => {
    const { user, sessionId } = await longChat()
    for (let i = 0; i < CHAT_SUMMARY_RETRY_LIMIT.max; i++) {
      expect((await post(user, '/api/session/memory/retry', { sessionId })).statusCode).toBe(200)
    }
    expect((await post(user, '/api/session/memory/retry', { sessionId })).statusCode).toBe(429)
  })
})
