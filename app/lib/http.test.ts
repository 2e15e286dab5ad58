import { createHash } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { refreshTokens } from '#db/schema/auth.ts'
import { AppError } from '#server/lib/errors.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { ApiError, api, fileNameOf } from './http.ts'
import { loadUserInfo } from './user-info.ts'

// The browser's client, run in Node against the real server over a real socket. Only `window`
// (location and localStorage) is provided by hand.
describe('api() — the one HTTP client', () => {
  let t: TestApp
  let origin = ''
  let refreshCalls = 0
  let realPair = { token: '', refreshToken: '' }
  const storage = new Map<string, string>()
  const assign = vi.fn()

  beforeAll(async () => {
    t = await buildTestApp({
      configure: async (app) => {
        app.addHook('onRequest', async (request) => {
          if (request.url === '/api/refresh') refreshCalls += 1
        })
        await app.register(
          async (api) => {
            api.get('/test/ok', async (request) => ({
              code: 0,
              success: true,
              message: 'ok',
              data: { query: request.query, auth: request.headers.authorization ?? null },
            }))
            api.post('/test/conflict', async () => {
              throw AppError.conflict('Name taken', { field: 'name' })
            })
            api.get('/test/slow', async () => {
              await new Promise((r) => setTimeout(r, 400))
              return { code: 0, success: true, message: 'ok', data: null }
            })
            api.get('/test/not-an-envelope', async () => ({ hello: 'world' }))
            api.get('/test/mine', { preHandler: app.requireUser }, async (request) => ({
              code: 0,
              success: true,
              message: 'ok',
              data: { userId: request.userId },
            }))
            api.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null))
            api.post('/test/form', async (request) => ({
              code: 0,
              success: true,
              message: 'ok',
              data: { contentType: request.headers['content-type'] },
            }))
          },
          { prefix: '/api' },
        )
      },
    })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  })
  afterAll(() => t.close())

  beforeEach(async () => {
    // A real account and a real login, so refreshing goes through the real /api/refresh.
    const password = 'a long walk by the river'
    const user = await createUser(t.database.db, { passwordHash: await hashPassword(password) })
    realPair = (
      await t.app.inject({ method: 'POST', url: '/api/login', payload: { email: user.email, password } })
    ).json().data
    storage.clear()
    refreshCalls = 0
    assign.mockReset()
    vi.stubGlobal('window', {
      location: { origin, pathname: '/fr/chat/7', search: '?x=1', assign },
      localStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
    })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('returns the data of a success envelope, with query parameters and the bearer token', async () => {
    storage.set('token', 'abc')
    const data = await api<{ query: Record<string, unknown>; auth: string }>('/test/ok', {
      query: { page: 2, tags: ['a', 'b'], skip: undefined },
    })
    expect(data.query).toEqual({ page: '2', tags: ['a', 'b'] })
    expect(data.auth).toBe('Bearer abc')
  })

  it('asks past the browser cache only when told to (a re-check of /api/models, ADR 031)', async () => {
    const sent = vi.spyOn(globalThis, 'fetch')
    try {
      await api('/test/ok', { cache: 'no-cache' })
      await api('/test/ok')
      expect(sent.mock.calls.map(([, init]) => init?.cache)).toEqual(['no-cache', undefined])
    } finally {
      sent.mockRestore()
    }
  })

  it('throws an ApiError carrying error, message, details and code', async () => {
    const error = await api('/test/conflict', { method: 'POST', body: { name: 'x' } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ code: 409, error: 'CONFLICT', message: 'Name taken', details: { field: 'name' } })
  })

  it('gives up after its time limit, without retrying', async () => {
    const started = Date.now()
    const error = await api('/test/slow', { timeoutMs: 100 }).catch((e: unknown) => e)
    expect(error).toMatchObject({ error: 'TIMEOUT', code: 408 })
    expect(Date.now() - started).toBeLessThan(390)
  })

  it('treats a 200 without the envelope as an invalid server response', async () => {
    const error = await api('/test/not-an-envelope').catch((e: unknown) => e)
    expect(error).toMatchObject({ error: 'INTERNAL_ERROR' })
    expect((error as Error).message).toMatch(/Invalid server response format/)
  })

  it('sends FormData as multipart, not JSON', async () => {
    const form = new FormData()
    form.set('name', 'Ann')
    const data = await api<{ contentType: string }>('/test/form', { method: 'POST', body: form })
    expect(data.contentType).toMatch(/^multipart\/form-data; boundary=/)
  })

  it('on a 401 refreshes the tokens once and repeats the call', async () => {
    storage.set('token', 'expired')
    storage.set('refreshToken', realPair.refreshToken)
    const data = await api<{ userId: string }>('/test/mine')
    expect(data.userId).toMatch(/^[0-9a-f-]{36}$/)
    expect(refreshCalls).toBe(1)
    // Rotated: the browser now holds the new refresh token.
    expect(storage.get('refreshToken')).not.toBe(realPair.refreshToken)
    expect(storage.get('refreshToken')?.length).toBeGreaterThan(30)
    expect(assign).not.toHaveBeenCalled()
  })

  it('when refreshing fails, clears the tokens and sends the user to login with the way back', async () => {
    storage.set('token', 'expired')
    storage.set('refreshToken', 'stolen')
    await api('/test/mine').catch(() => {})
    expect(assign).toHaveBeenCalledWith(`/fr/login?redirect_url=${encodeURIComponent('/fr/chat/7?x=1')}`)
    expect(storage.has('token')).toBe(false)
    expect(storage.has('refreshToken')).toBe(false)
  })

  it('a login that went unused too long or outlived its lifetime also sends the user to login', async () => {
    // The server refuses such a refresh with the same 401 as any other (ADR 019).
    const hash = createHash('sha256').update(realPair.refreshToken).digest('hex')
    for (const change of [
      { expiresAt: new Date(Date.now() - 1000) },
      { familyStartedAt: sql`now() - interval '31 days'` },
    ]) {
      await t.database.db.update(refreshTokens).set(change).where(eq(refreshTokens.tokenHash, hash))
      storage.set('token', 'expired')
      storage.set('refreshToken', realPair.refreshToken)
      assign.mockReset()
      const error = await api('/test/mine').catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 401 })
      expect(assign).toHaveBeenCalledWith(`/fr/login?redirect_url=${encodeURIComponent('/fr/chat/7?x=1')}`)
      expect(storage.has('token')).toBe(false)
      expect(storage.has('refreshToken')).toBe(false)
      await t.database.db
        .update(refreshTokens)
        .set({ expiresAt: new Date(Date.now() + 3_600_000), familyStartedAt: new Date() })
        .where(eq(refreshTokens.tokenHash, hash))
    }
  })

  it('refreshes an expired login for user info too, instead of dropping it', async () => {
    storage.set('token', 'expired')
    storage.set('refreshToken', realPair.refreshToken)
    const info = await loadUserInfo()
    expect(info?.username).toMatch(/\w/)
    expect(refreshCalls).toBe(1)
    expect(storage.get('refreshToken')).not.toBe(realPair.refreshToken)
    expect(storage.get('token')).not.toBe('expired')
    expect(assign).not.toHaveBeenCalled()
  })

  it('forgets the tokens quietly when user info finds the login over', async () => {
    storage.set('token', 'expired')
    storage.set('refreshToken', 'ended-long-ago')
    expect(await loadUserInfo()).toBeNull()
    expect(storage.has('token')).toBe(false)
    expect(storage.has('refreshToken')).toBe(false)
    // User info is asked for on pages signed-out visitors see: no trip to the login page.
    expect(assign).not.toHaveBeenCalled()
  })

  it('two tabs hitting a 401 together refresh once, and both stay logged in', async () => {
    storage.set('token', 'expired')
    storage.set('refreshToken', realPair.refreshToken)
    // Each tab has its own copy of the client; they share local storage and the Web Locks.
    vi.resetModules()
    const tabA = await import('./http.ts')
    vi.resetModules()
    const tabB = await import('./http.ts')
    expect(tabA.api).not.toBe(tabB.api)
    const [a, b] = await Promise.all([
      tabA.api<{ userId: string }>('/test/mine'),
      tabB.api<{ userId: string }>('/test/mine'),
    ])
    expect(a.userId).toMatch(/^[0-9a-f-]{36}$/)
    expect(b.userId).toBe(a.userId)
    expect(refreshCalls).toBe(1)
    expect(assign).not.toHaveBeenCalled()
    // The login goes on: the stored refresh token still works.
    storage.set('token', 'expired again')
    expect((await tabB.api<{ userId: string }>('/test/mine')).userId).toBe(a.userId)
    expect(refreshCalls).toBe(2)
  })

  it('never redirects to login for the public calls of the spec', async () => {
    // /login is public: its 401 is an answer for the form, not a reason to leave the page.
    const error = await api('/login', { method: 'POST', body: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(assign).not.toHaveBeenCalled()
  })

  it('reports an unreachable server as a network error', async () => {
    vi.stubGlobal('window', { ...globalThis.window, location: { origin: 'http://127.0.0.1:1', pathname: '/' } })
    const error = await api('/test/ok').catch((e: unknown) => e)
    expect(error).toMatchObject({ error: 'NETWORK_ERROR', code: 0 })
  })
})

describe('fileNameOf: the name of a download', () => {
  it('takes the RFC 5987 name in its own script before the ASCII fallback, and the fallback alone', () => {
    const both = `attachment; filename="character.png"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC%20%281%29.png`
    expect(fileNameOf(both)).toBe('東京 (1).png')
    expect(fileNameOf('attachment; filename="Mira_Vale.json"')).toBe('Mira_Vale.json')
    expect(fileNameOf(`attachment; filename="a.png"; filename*=UTF-8''%E6%9D`)).toBe('a.png')
    expect(fileNameOf('')).toBeNull()
  })
})
