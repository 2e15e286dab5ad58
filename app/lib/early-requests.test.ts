import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { EARLY_REQUEST_TTL_MS, type EarlyRequest, earlyRequestsScript } from './early-requests.tsx'
import { api } from './http.ts'

// The inline script and `api()` together, in Node against the real server over a real socket:
// what the page starts early is what the app's call then uses, once, and only when it is the same call.
describe('early requests (ADR 068)', () => {
  let t: TestApp
  let origin = ''
  const arrived: { method: string; url: string; auth: string | null; body: unknown }[] = []
  const storage = new Map<string, string>()
  let pageFetch: typeof fetch = globalThis.fetch

  beforeAll(async () => {
    t = await buildTestApp({
      configure: async (app) => {
        await app.register(
          async (routes) => {
            const echo = async (request: {
              method: string
              url: string
              headers: Record<string, unknown>
              body: unknown
            }) => {
              arrived.push({
                method: request.method,
                url: request.url,
                auth: (request.headers.authorization as string | undefined) ?? null,
                body: request.body ?? null,
              })
              return { code: 0, success: true, message: 'ok', data: { n: arrived.length, body: request.body ?? null } }
            }
            routes.post('/test/early', echo)
            routes.get('/test/early-list', echo)
          },
          { prefix: '/api' },
        )
      },
    })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  })
  afterAll(() => t.close())

  beforeEach(() => {
    arrived.length = 0
    storage.clear()
    pageFetch = (input, init) => globalThis.fetch(input, init)
    vi.stubGlobal('window', {
      location: { origin, pathname: '/chat/1', search: '', assign: vi.fn() },
      localStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
      fetch: (input: RequestInfo | URL, init?: RequestInit) => pageFetch(input, init),
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  const runPageScript = (requests: EarlyRequest[]) => new Function(earlyRequestsScript(requests))()
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
  const calls: EarlyRequest[] = [
    { method: 'POST', path: '/test/early', body: { sessionId: 's1', locale: 'fr', limit: 50 } },
    { method: 'GET', path: '/test/early-list' },
  ]

  it('starts each call with the token at once, and api() uses those answers instead of asking again', async () => {
    storage.set('token', 'tok-1')
    runPageScript(calls)
    await settle()
    // The two went out together: in either order.
    expect(arrived.map((a) => [a.method, a.url, a.auth, a.body]).sort()).toEqual([
      ['GET', '/api/test/early-list', 'Bearer tok-1', null],
      ['POST', '/api/test/early', 'Bearer tok-1', { sessionId: 's1', locale: 'fr', limit: 50 }],
    ])

    const first = await api<{ n: number; body: unknown }>('/test/early', {
      method: 'POST',
      body: { sessionId: 's1', locale: 'fr', limit: 50 },
    })
    const list = await api<{ n: number; body: unknown }>('/test/early-list')
    expect(first.body).toEqual({ sessionId: 's1', locale: 'fr', limit: 50 })
    expect(list.body).toBeNull()
    expect([first.n, list.n].sort()).toEqual([1, 2])
    expect(arrived).toHaveLength(2)

    // Used once: the same call again goes out.
    const again = await api<{ n: number }>('/test/early', {
      method: 'POST',
      body: { sessionId: 's1', locale: 'fr', limit: 50 },
    })
    expect(again.n).toBe(3)
  })

  it('sends a call anew when its body differs from the one started', async () => {
    storage.set('token', 'tok-1')
    runPageScript(calls)
    await settle()
    const other = await api<{ body: unknown }>('/test/early', {
      method: 'POST',
      body: { sessionId: 's2', locale: 'fr', limit: 50 },
    })
    expect(other.body).toEqual({ sessionId: 's2', locale: 'fr', limit: 50 })
    expect(arrived).toHaveLength(3)
  })

  it('does not use an answer got with another token, or one too old', async () => {
    storage.set('token', 'tok-1')
    runPageScript(calls)
    await settle()
    storage.set('token', 'tok-2')
    await api('/test/early-list')
    expect(arrived.at(-1)?.auth).toBe('Bearer tok-2')

    storage.set('token', 'tok-1')
    runPageScript(calls)
    await settle()
    const count = arrived.length
    const now = Date.now()
    vi.spyOn(Date, 'now').mockReturnValue(now + EARLY_REQUEST_TTL_MS + 1)
    try {
      await api('/test/early-list')
    } finally {
      vi.restoreAllMocks()
    }
    expect(arrived).toHaveLength(count + 1)
  })

  it('starts nothing for a signed-out visitor', async () => {
    runPageScript(calls)
    await settle()
    expect(arrived).toHaveLength(0)
    expect((globalThis.window as Window).__EARLY_REQUESTS__).toBeUndefined()
  })

  it('sends the call itself when the early one failed on the network', async () => {
    storage.set('token', 'tok-1')
    pageFetch = () => Promise.reject(new TypeError('Failed to fetch'))
    runPageScript(calls)
    await settle()
    const list = await api<{ n: number }>('/test/early-list')
    expect(list.n).toBe(1)
    expect(arrived.map((a) => a.url)).toEqual(['/api/test/early-list'])
  })

  it('keeps the script free of anything that could end its element early', () => {
    const script = earlyRequestsScript([{ method: 'POST', path: '/x', body: { text: '</script><b>' } }])
    expect(script).not.toContain('</script>')
  })
})
