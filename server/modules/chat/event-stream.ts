// A reply's server-sent event stream, written to the socket in as few writes as the reader can't
// tell apart from one per token (issue 24: each write to a socket is a system call and a TCP
// segment, and at one token per write they were a fifth of a send's CPU).
import type { FastifyReply } from 'fastify'
import type { ChatStreamEventName } from '#contracts/chat.ts'

/**
 * How long later events wait to leave together (ms). A screen shows a frame every ~16 ms, so a
 * reader sees the same text at the same pace; the first event of each kind (the start, the first
 * token, the end) never waits.
 */
export const EVENT_STREAM_GATHER_MS = 25

/**
 * A server-sent event stream on the raw response. Fastify's serialisation and compression stay out
 * of the way (`hijack`). A comment line every `keepAliveMs` while it is open keeps proxies from
 * closing a stream that waits for a slow model, and tells the browser the server is still there
 * (it gives up after CHAT_STREAM_IDLE_LIMIT_MS of silence, ADR 032).
 *
 * Writes: an event of a kind not sent before leaves at the end of the current tick (so a last
 * event and `end()` go out in one write). Later events of the same kind (the tokens) are gathered
 * for up to EVENT_STREAM_GATHER_MS after the last write and leave together.
 */
export function openEventStream(reply: FastifyReply, keepAliveMs: number, gatherMs = EVENT_STREAM_GATHER_MS) {
  reply.hijack()
  const raw = reply.raw
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (typeof value === 'string') headers[name] = value
  }
  raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  })
  const open = () => !raw.destroyed && !raw.writableEnded
  const sent = new Set<ChatStreamEventName>()
  let pending = ''
  let lastWriteAt = Number.NEGATIVE_INFINITY
  let timer: ReturnType<typeof setTimeout> | undefined
  let tickQueued = false

  function flush() {
    clearTimeout(timer)
    timer = undefined
    tickQueued = false
    if (!pending) return
    if (open()) raw.write(pending)
    pending = ''
    lastWriteAt = performance.now()
  }
  function queue(text: string, urgent: boolean) {
    if (!open()) return
    pending += text
    if (urgent) {
      if (!tickQueued) {
        tickQueued = true
        process.nextTick(flush)
      }
      return
    }
    if (timer || tickQueued) return
    const wait = lastWriteAt + gatherMs - performance.now()
    if (wait <= 0) {
      tickQueued = true
      process.nextTick(flush)
    } else timer = setTimeout(flush, wait)
  }

  const keepalive = setInterval(() => queue(': keep-alive\n\n', true), keepAliveMs)
  keepalive.unref()
  return {
    send(event: ChatStreamEventName, data: unknown) {
      const urgent = !sent.has(event)
      sent.add(event)
      queue(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, urgent)
    },
    /** Ends the response, with whatever is still gathered in the same write. */
    end() {
      clearInterval(keepalive)
      clearTimeout(timer)
      timer = undefined
      const rest = pending
      pending = ''
      if (open()) raw.end(rest || undefined)
    },
  }
}
