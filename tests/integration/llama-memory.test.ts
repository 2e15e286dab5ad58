import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { type LlamaServer, llamaAvailable, reservePort, startLlamaServer } from '#tests/helpers/llama-server.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 18 item 7 against the real llama.cpp server (../shared/llama) at a 256-token context: a
// chat far longer than that triggers a memory summary that the server accepts (sized to the
// context it reports, ADR 034), and a reply that starts while the summary runs completes (the
// summary gives way and runs afterwards). Skipped where ../shared/llama is absent.

const CTX = 256
const TEMPLATE = 'mistralai-Mistral-Nemo-Instruct-2407.jinja'
const line = 'The storm rolled in from the north and the harbour lights went out one by one.'

type Session = Awaited<ReturnType<TestApp['login']>>

describe.skipIf(!llamaAvailable)(`real llama-server at -c ${CTX}: the memory summary`, () => {
  let t: TestApp
  let server: LlamaServer | undefined
  const logLines: string[] = []

  beforeAll(async () => {
    const reserved = await reservePort()
    server = await startLlamaServer(reserved, CTX, TEMPLATE, ['--reasoning-format', 'none'])
    // No contextTokens: the app learns the context from the server (/props), as in production.
    const modelsFile = writeModelsFile([
      { id: 'tiny', premium: false, baseUrl: `http://127.0.0.1:${reserved.port}/v1` },
    ])
    t = await buildTestApp({
      env: { MODELS_FILE: modelsFile },
      // The test runs the jobs itself, to start the summary exactly when it wants.
      jobQueue: { worker: false, retryDelayMs: () => 60_000 },
      logStream: { write: (text) => void logLines.push(text) },
    })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await server?.stop()
  })

  const post = (session: Session, url: string, payload: object) =>
    t.injectWithLogin({ method: 'POST', url, payload }, session)
  const send = (session: Session, sessionId: string, message: string) =>
    post(session, '/api/chat', { sessionId, message, chatModelId: 'tiny' })

  async function jobOf(sessionId: string) {
    const result = await t.database.db.execute(
      sql`SELECT attempts, failed_at, last_error FROM jobs WHERE key = ${`summary:${sessionId}`} ORDER BY id DESC LIMIT 1`,
    )
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      attempts: number
      failed_at: unknown
      last_error: string | null
    }[]
    return rows[0]
  }

  const why = () =>
    [
      '--- app log (tail):',
      ...logLines.filter((l) => l.includes('summary') || l.includes('"err"')).slice(-4),
      '--- llama-server log (tail):',
      server?.log().slice(-1500),
    ].join('\n')

  it('a long chat is summarised within the context, and a reply that starts meanwhile completes first', async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in, {{user}}.' })
    const sessionId = (await post(user, '/api/createSession', { roleId })).json().data.id as string
    await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 12 }, (_, i) => ({
        author: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `${i + 1}. ${line} ${line}`,
      })),
    )
    const first = await send(user, sessionId, 'What happened to the lights?')
    expect(first.statusCode, `${first.body}\n${why()}`).toBe(200)
    expect(first.json().data.context.trimmed).toBe(true)
    await expect
      .poll(async () => {
        const job = await jobOf(sessionId)
        return job ? job.failed_at : 'none'
      })
      .toBe(null)

    // The summary starts; a reply starts while it runs: the summary gives way, the reply completes.
    const draining = t.app.services.jobs.drain()
    const reply = await send(user, sessionId, 'And the boats?')
    expect(reply.statusCode, `${reply.body}\n${why()}`).toBe(200)
    expect(reply.json().data.reply.status).toMatch(/complete|cut/)
    expect(reply.json().data.reply.content.length).toBeGreaterThan(0)
    await draining
    // Whether it was deferred or had already finished, it never failed.
    const memoryAfterReply = (await post(user, '/api/session/memory', { sessionId })).json().data
    expect(memoryAfterReply.summaryProblem, why()).toBeNull()

    // The summary (again, if it gave way) runs now, and the real server accepts it.
    await t.app.services.jobs.retryNow(`summary:${sessionId}`)
    await t.app.services.jobs.drain()
    const memory = (await post(user, '/api/session/memory', { sessionId })).json().data
    expect(memory.note.length, why()).toBeGreaterThan(0)
    expect(memory.coversThroughMessageId).not.toBeNull()
    expect(memory.summaryProblem).toBeNull()
    expect(
      logLines.filter((l) => l.includes('memory summary failed')),
      why(),
    ).toEqual([])
    // No summary job left waiting or given up for this chat... unless the window moved on again.
    const job = await jobOf(sessionId)
    expect(job?.failed_at ?? null).toBeNull()

    // And the chat goes on.
    const after = await send(user, sessionId, 'Tell me more.')
    expect(after.statusCode, `${after.body}\n${why()}`).toBe(200)
  }, 120_000)
})
