import Fastify, { type FastifyReply } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { parseEvents } from '#tests/helpers/chat.ts'
import { openEventStream } from './event-stream.ts'

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** What reached the response, one entry per call of `write` or `end` (with its text). */
type Writes = { call: 'write' | 'end'; text: string }[]

/**
 * Runs `script` inside a route on an event stream whose writes are recorded, and answers the
 * recorded writes with the body the client received.
 */
async function record(
  gatherMs: number,
  script: (stream: ReturnType<typeof openEventStream>, writes: Writes) => Promise<void>,
) {
  const app = Fastify()
  const writes: Writes = []
  app.get('/events', async (_request, reply: FastifyReply) => {
    const raw = reply.raw
    const write = raw.write.bind(raw) as (chunk: string) => boolean
    const end = raw.end.bind(raw) as (chunk?: string) => typeof raw
    // Only the stream's own calls count: the injected response's `end` writes its chunk itself.
    let ending = false
    raw.write = ((chunk: string) => {
      if (!ending) writes.push({ call: 'write', text: String(chunk) })
      return write(chunk)
    }) as typeof raw.write
    raw.end = ((chunk?: string) => {
      writes.push({ call: 'end', text: chunk === undefined ? '' : String(chunk) })
      ending = true
      return end(chunk)
    }) as typeof raw.end
    const stream = openEventStream(reply, 60_000, gatherMs)
    try {
      await script(stream, writes)
    } catch (error) {
      // An expectation failed inside the route: end the response so the test reports it at once.
      failure = error
      if (!raw.writableEnded) end()
    }
    return reply
  })
  apps.push(app)
  let failure: unknown
  const response = await app.inject({ method: 'GET', url: '/events' })
  if (failure) throw failure
  return { writes, response }
}
const apps: ReturnType<typeof Fastify>[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

describe('openEventStream', () => {
  it('writes the first event of each kind at once, gathers the tokens after it, and ends with the last ones in one write', async () => {
    const { writes, response } = await record(10_000, async (stream, writes) => {
      stream.send('start', { id: 1 })
      await tick()
      expect(writes.map((w) => w.call)).toEqual(['write'])
      stream.send('delta', { text: 'Who' })
      await tick()
      // The first token is the one the reader waits for: it does not wait for the window.
      expect(writes).toHaveLength(2)
      expect(writes[1]?.text).toContain('"Who"')
      stream.send('delta', { text: ' knocks' })
      stream.send('delta', { text: ' so late' })
      await tick()
      expect(writes).toHaveLength(2)
      stream.send('done', { ok: true })
      stream.end()
      await tick()
    })
    expect(writes.map((w) => w.call)).toEqual(['write', 'write', 'end'])
    expect(parseEvents(writes[2]?.text ?? '').map((e) => e.event)).toEqual(['delta', 'delta', 'done'])
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(parseEvents(response.body).map((e) => [e.event, e.data])).toEqual([
      ['start', { id: 1 }],
      ['delta', { text: 'Who' }],
      ['delta', { text: ' knocks' }],
      ['delta', { text: ' so late' }],
      ['done', { ok: true }],
    ])
  })

  it('sends gathered tokens together once the window has passed, without waiting for the end', async () => {
    const { writes } = await record(30, async (stream, writes) => {
      stream.send('start', {})
      stream.send('delta', { text: 'a' })
      await tick()
      expect(writes).toHaveLength(1)
      stream.send('delta', { text: 'b' })
      stream.send('delta', { text: 'c' })
      await sleep(80)
      expect(writes).toHaveLength(2)
      expect(parseEvents(writes[1]?.text ?? '').map((e) => e.data)).toEqual([{ text: 'b' }, { text: 'c' }])
      // Quiet for longer than the window: the next token leaves at once.
      await sleep(40)
      stream.send('delta', { text: 'd' })
      await tick()
      expect(writes).toHaveLength(3)
      stream.end()
    })
    expect(writes.at(-1)).toEqual({ call: 'end', text: '' })
  })

  it('writes nothing after the response has ended', async () => {
    const { writes } = await record(30, async (stream) => {
      stream.send('start', {})
      stream.end()
      stream.send('delta', { text: 'late' })
      await sleep(50)
    })
    expect(writes.map((w) => w.call)).toEqual(['end'])
    expect(writes.map((w) => w.text).join('')).not.toContain('late')
  })
})
