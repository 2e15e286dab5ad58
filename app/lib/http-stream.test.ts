import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { apiStream } from './http.ts'

// apiStream's idle limit (ADR 032), in Node against a plain HTTP server over a real socket: a stream
// may take as long as it likes while bytes (keep-alive comments included) keep coming; it gives up
// only when nothing at all arrived for the limit.
const IDLE_MS = 150

/** Writes the `: keep-alive` comment every `every` ms for `forMs`, then one event and the end; or goes silent. */
function play(res: http.ServerResponse, every: number, forMs: number, then: 'event' | 'silence') {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.write(': keep-alive\n\n')
  const timer = setInterval(() => res.write(': keep-alive\n\n'), every)
  setTimeout(() => {
    clearInterval(timer)
    if (then === 'event') res.end('event: done\ndata: {"ok":true}\n\n')
  }, forMs)
  res.on('close', () => clearInterval(timer))
}

describe('apiStream — no deadline, an idle limit', () => {
  let server: http.Server
  let origin = ''
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/api/test/slow-but-alive') play(res, IDLE_MS / 3, IDLE_MS * 4, 'event')
      else if (req.url === '/api/test/falls-silent') play(res, IDLE_MS / 3, IDLE_MS, 'silence')
      else if (req.url === '/api/test/no-headers') setTimeout(() => res.end(), IDLE_MS * 4)
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  beforeEach(() => {
    vi.stubGlobal('window', { location: { origin }, localStorage: { getItem: () => null } })
    return () => vi.unstubAllGlobals()
  })

  const readAll = async (response: Response) => {
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    for (;;) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined }
      if (done) return text
      text += value
    }
  }

  it('reads a stream that lasts well past the limit while keep-alive comments keep coming', async () => {
    const started = Date.now()
    const response = await apiStream('/test/slow-but-alive', { method: 'POST', idleTimeoutMs: IDLE_MS })
    const text = await readAll(response)
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS * 3)
    expect(text).toContain('event: done')
  })

  it('gives up with TIMEOUT once nothing arrived for the limit, mid-stream', async () => {
    const started = Date.now()
    const response = await apiStream('/test/falls-silent', { method: 'POST', idleTimeoutMs: IDLE_MS })
    const error = await readAll(response).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ApiError', error: 'TIMEOUT', code: 408 })
    // The silence began after about IDLE_MS: the limit counts from the last comment, not from the start.
    const elapsed = Date.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(IDLE_MS * 1.5)
    expect(elapsed).toBeLessThan(IDLE_MS * 4)
  })

  it('gives up with TIMEOUT when even the headers do not come', async () => {
    const error = await apiStream('/test/no-headers', { method: 'POST', idleTimeoutMs: IDLE_MS }).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ name: 'ApiError', error: 'TIMEOUT', code: 408 })
  })

  it('a stop by the caller is not a timeout', async () => {
    const abort = new AbortController()
    const response = await apiStream('/test/slow-but-alive', {
      method: 'POST',
      idleTimeoutMs: IDLE_MS,
      signal: abort.signal,
    })
    setTimeout(() => abort.abort(), IDLE_MS / 2)
    const error = await readAll(response).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'AbortError' })
  })
})
