import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatMessage, ChatStreamEvent } from '#contracts/chat.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { parseEvents, readEvents } from '#tests/helpers/chat.ts'
import { embeddedAvailable, embeddedEnv } from '#tests/helpers/embedded.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 19: chat on the embedded model (node-llama-cpp in this process, ADR 036) through the
// product's API, with the tiny real GGUF of ../shared/llama and a real chat template (the file
// has none). Skipped (never passed) where that folder or node-llama-cpp is absent.

describe.skipIf(!embeddedAvailable)('chat on the embedded model (tiny GGUF, in-process)', () => {
  let t: TestApp
  let baseUrl = ''
  beforeAll(async () => {
    t = await buildTestApp({ env: embeddedEnv({ EMBEDDED_CONTEXT: '1024', EMBEDDED_PARALLEL: '2' }) })
    await t.app.services.embedded?.start()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const address = t.app.server.address()
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  }, 60_000)
  afterAll(async () => {
    await t?.close()
  })

  type Session = Awaited<ReturnType<TestApp['login']>>
  const post = (session: Session, url: string, payload: object) =>
    t.injectWithLogin({ method: 'POST', url, payload }, session)
  async function newChat(session?: Session) {
    const user = session ?? (await t.login())
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })
    const sessionId = (await post(user, '/api/createSession', { roleId })).json().data.id as string
    return { user, sessionId }
  }
  const messagesOf = async (user: Session, sessionId: string) =>
    (await post(user, '/api/messages', { sessionId, limit: 100 })).json().data.items as ChatMessage[]
  const eventOf = <E extends ChatStreamEvent['event']>(events: ChatStreamEvent[], name: E) =>
    events.find((e) => e.event === name) as Extract<ChatStreamEvent, { event: E }> | undefined

  it('reports itself ready, as a normal model of the registry', async () => {
    expect(t.app.embeddedModel?.status()).toMatchObject({ state: 'ready', percent: null, failure: null })
    const models = (await t.injectWithLogin({ method: 'GET', url: '/api/models' })).json().data
    expect(JSON.stringify(models)).toContain('"id":"embedded"')
  })

  it('streams a reply end to end and stores it', async () => {
    const { user, sessionId } = await newChat()
    const res = await post(user, '/api/chat/stream', { sessionId, message: 'Hello there.' })
    expect(res.statusCode).toBe(200)
    const events = parseEvents(res.body)
    expect(events[0]?.event).toBe('start')
    const deltas = events.filter((e) => e.event === 'delta')
    expect(deltas.length).toBeGreaterThan(1)
    const done = eventOf(events, 'done')?.data
    expect(done?.reply?.content.length).toBeGreaterThan(0)
    const stored = await messagesOf(user, sessionId)
    expect(stored[0]).toMatchObject({ author: 'assistant', content: done?.reply?.content })
  })

  it('stops mid-reply on request, keeping the text so far as interrupted', async () => {
    const { user, sessionId } = await newChat()
    const response = await fetch(`${baseUrl}/api/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId, message: 'Tell me a long story.' }),
    })
    let stopped = false
    const events = await readEvents(response, async (event) => {
      if (event.event === 'delta' && !stopped) {
        stopped = true
        expect((await post(user, '/api/chat/stop', { sessionId })).json().data).toEqual({ stopped: true })
      }
    })
    const end = eventOf(events, 'stopped')?.data
    expect(end?.reply?.status).toBe('interrupted')
    expect(eventOf(events, 'done')).toBeUndefined()
    expect((await messagesOf(user, sessionId))[0]).toEqual(end?.reply)
    // The sequence is free again: the next reply comes.
    const next = parseEvents((await post(user, '/api/chat/stream', { sessionId, message: 'Go on.' })).body)
    expect(eventOf(next, 'done')?.data.reply?.content.length).toBeGreaterThan(0)
  })

  it('writes two chats at once, each to the end', async () => {
    const [a, b] = await Promise.all([newChat(), newChat()])
    const [ra, rb] = await Promise.all([
      post(a.user, '/api/chat/stream', { sessionId: a.sessionId, message: 'First chat.' }),
      post(b.user, '/api/chat/stream', { sessionId: b.sessionId, message: 'Second chat.' }),
    ])
    for (const res of [ra, rb]) {
      const done = eventOf(parseEvents(res.body), 'done')?.data
      expect(done?.reply?.content.length).toBeGreaterThan(0)
    }
  })

  it('stores a reply cut at its length as cut, and Continue extends it in place', async () => {
    const { user, sessionId } = await newChat()
    const sent = await post(user, '/api/chat', { sessionId, message: 'Tell me everything.' })
    expect(sent.statusCode).toBe(200)
    const first = sent.json().data.reply as ChatMessage
    // Random weights rarely end a reply: the reply length cuts it.
    expect(first.status).toBe('cut')
    const continued = await post(user, '/api/chat/continue', { sessionId })
    expect(continued.statusCode).toBe(200)
    const reply = continued.json().data.reply as ChatMessage
    expect(reply.id).toBe(first.id)
    expect(reply.content.startsWith(first.content)).toBe(true)
    expect(reply.content.length).toBeGreaterThan(first.content.length)
  })
})
