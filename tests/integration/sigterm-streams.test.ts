import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatStreamEvent } from '#contracts/chat.ts'
import { openDatabase } from '#db/client.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { type RunningServer, startServer } from '#tests/e2e/browser.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { createUser } from '#tests/factories/user.ts'
import { readEvents } from '#tests/helpers/chat.ts'
import { withDatabase } from '#tests/helpers/test-database.ts'

// Issue 11, outside faults: the real process (`node server/index.ts`) gets SIGTERM while replies
// stream to several people and other requests are in flight. Each reply finishes or is stored as
// interrupted with the text streamed so far, every user message is stored, new connections are
// refused while draining, the process exits 0 within its grace period, and a restart on the same
// data shows all of it through the API. On the embedded PGlite data folder, and on PostgreSQL too
// when TEST_DATABASE_URL is set. (chat.test.ts covers the chat service's own shutdown in-process.)
// It needs the production build (`npm run build`), like every test that starts the real server.

const built = existsSync(path.resolve(import.meta.dirname, '..', '..', 'build', 'server', 'index.js'))
const PASSWORD = 'sigterm-proof-password-42'
/** server/index.ts: SHUTDOWN_GRACE_MS. */
const GRACE_MS = 25_000
// Long enough that every stream is mid-reply when the signal comes (60 words, 120 ms apart).
const REPLY = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
const engines = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])] as const

describe.skipIf(!built).each(engines)('SIGTERM while replies stream (%s)', (engine) => {
  let api: OpenAiApiDouble
  let dataDir = ''
  let databaseUrl: string | undefined
  let scratch = ''
  let server: RunningServer | undefined

  async function admin(query: string) {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await client.connect()
    try {
      await client.query(query)
    } finally {
      await client.end()
    }
  }

  const env = () => ({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    JWT_SECRET: 'sigterm-'.repeat(6),
    LLM_BASE_URL: api.baseUrl,
    LLM_MODEL: 'tavern-8b',
    LOG_LEVEL: 'info',
  })

  beforeAll(async () => {
    api = await startOpenAiApi({ reply: REPLY, tokenDelayMs: 120 })
    dataDir = mkdtempSync(path.join(tmpdir(), 'rp-sigterm-'))
    if (engine === 'postgres') {
      scratch = `sigterm_${randomBytes(4).toString('hex')}`
      await admin(`create database ${scratch}`)
      databaseUrl = withDatabase(process.env.TEST_DATABASE_URL as string, scratch)
    }
  })

  afterAll(async () => {
    await server?.stop('SIGKILL')
    await api?.close()
    if (scratch) await admin(`drop database if exists ${scratch} with (force)`)
  })

  it('finishes or stores every reply, refuses newcomers, exits 0, and shows it all after a restart', async () => {
    // People and a character, written before the server starts (PGlite allows one process).
    const database = openDatabase({ url: databaseUrl, dataDir })
    await database.migrate()
    const passwordHash = await hashPassword(PASSWORD)
    const people = await Promise.all(Array.from({ length: 4 }, () => createUser(database.db, { passwordHash })))
    const roleId = await createRole(database.db, { name: 'Keeper', firstMessage: 'The lamp is lit.' })
    await database.close()

    server = await startServer(env())
    const first = server
    const post = (route: string, body: unknown, token?: string) =>
      fetch(`${first.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
    const chats: { token: string; sessionId: string }[] = []
    for (const person of people) {
      const login = await post('/api/login', { email: person.email, password: PASSWORD })
      expect(login.status).toBe(200)
      const token = ((await login.json()) as { data: { token: string } }).data.token
      const session = await post('/api/createSession', { roleId }, token)
      expect(session.status).toBe(200)
      chats.push({ token, sessionId: ((await session.json()) as { data: { id: string } }).data.id })
    }

    // Replies stream to everyone; the first one asked is short and done before the signal, the
    // others are mid-reply when it comes.
    api.reply = (_messages, body) => (body.stream && api.requests.length === 1 ? 'Short and done.' : REPLY)
    api.reset()
    const streams = chats.map(async (chat, i) => {
      const res = await post(
        '/api/chat/stream',
        { sessionId: chat.sessionId, message: `Person ${i} asks.` },
        chat.token,
      )
      expect(res.status).toBe(200)
      const events: ChatStreamEvent[] = []
      let text = ''
      await readEvents(res, (event) => {
        events.push(event)
        if (event.event === 'delta') text += event.data.text
      })
      return { chat, events, text }
    })
    // Every stream has started writing before the signal.
    await expect.poll(() => api.timings.filter((t) => t.firstTokenAt).length, { timeout: 15_000 }).toBe(4)
    await new Promise((r) => setTimeout(r, 300))
    // Other requests in flight when the signal arrives.
    const inFlight = [
      post('/api/login', { email: people[0]?.email, password: PASSWORD }),
      fetch(`${first.url}/api/roles?page=1`),
      post('/api/sessions', {}, chats[1]?.token),
    ]
    await new Promise((r) => setTimeout(r, 30))
    const signalledAt = Date.now()
    const exited = first.stop('SIGTERM')

    // Newcomers are refused while it drains (a fresh connection, not a pooled keep-alive one).
    await new Promise((r) => setTimeout(r, 50))
    const newcomer = await new Promise<string>((resolve) => {
      const req = http.get(`${first.url}/api/roles`, { agent: false }, (res) => {
        res.resume()
        resolve(String(res.statusCode))
      })
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    expect(['ECONNREFUSED', 'ECONNRESET', '503']).toContain(newcomer)

    const results = await Promise.all(streams)
    const others = await Promise.all(inFlight)
    expect(others.map((r) => r.status)).toEqual([200, 200, 200])
    expect(await exited, first.output()).toBe(0)
    expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS)
    expect(first.output()).toContain('shut down cleanly')

    // Each reply finished, or failed as "restarting" with its text kept as an interrupted reply.
    const outcomes = results.map(({ events, text }) => {
      const start = events.find((e) => e.event === 'start')
      const last = events.at(-1)
      expect(start?.event).toBe('start')
      const userMessageId = start?.event === 'start' ? start.data.userMessage?.id : undefined
      expect(userMessageId).toBeGreaterThan(0)
      if (last?.event === 'done') return { userMessageId, replyId: last.data.reply.id, text, status: 'complete' }
      expect(last).toMatchObject({ event: 'error', data: { code: 'SERVICE_UNAVAILABLE', partialKept: true } })
      const reply = last?.event === 'error' ? last.data.reply : null
      expect(reply).toMatchObject({ status: 'interrupted', content: text })
      return { userMessageId, replyId: reply?.id, text, status: 'interrupted' }
    })
    expect(outcomes.map((o) => o.status).sort()).toEqual(['complete', 'interrupted', 'interrupted', 'interrupted'])
    for (const o of outcomes.filter((o) => o.status === 'interrupted')) {
      expect(o.text.length).toBeGreaterThan(0)
      expect(o.text.length).toBeLessThan(REPLY.length)
    }

    // A restart on the same data shows every user message and every reply as the client last saw it.
    server = await startServer(env())
    const second = server
    for (const [i, chat] of chats.entries()) {
      const res = await fetch(`${second.url}/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${chat.token}` },
        body: JSON.stringify({ sessionId: chat.sessionId, limit: 20 }),
      })
      expect(res.status).toBe(200)
      const items = (
        (await res.json()) as { data: { items: { id: number; author: string; content: string; status: string }[] } }
      ).data.items
      const outcome = outcomes[i] as (typeof outcomes)[number]
      expect(items.find((m) => m.id === outcome.userMessageId)).toMatchObject({
        author: 'user',
        content: `Person ${i} asks.`,
      })
      expect(items.find((m) => m.id === outcome.replyId)).toMatchObject({
        author: 'assistant',
        status: outcome.status,
        content: outcome.text,
      })
    }
    expect(await second.stop('SIGTERM')).toBe(0)
    server = undefined
  }, 180_000)
})
