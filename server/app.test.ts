import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AppError } from '#server/lib/errors.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('the HTTP application', () => {
  let t: TestApp
  const apiRoutes: string[] = []

  beforeAll(async () => {
    t = await buildTestApp({
      configure: async (app) => {
        app.addHook('onRoute', (route) => {
          if (route.url.startsWith('/api/') && !route.url.startsWith('/api/docs')) apiRoutes.push(route.url)
        })
        // Routes that exist only in this test, to drive the error handler and authentication.
        await app.register(
          async (api) => {
            api.get('/test/boom', async () => {
              throw new Error('secret connection string postgres://user:pw@db')
            })
            api.get('/test/conflict', async () => {
              throw AppError.conflict('Name taken', { field: 'name' })
            })
            api.post(
              '/test/echo',
              { schema: { body: z.object({ name: z.string().min(2).max(20) }).strict() } },
              async (request) => ({ code: 0, success: true, message: 'ok', data: request.body }),
            )
            api.get('/test/me', { preHandler: app.requireUser }, async (request) => ({
              code: 0,
              success: true,
              message: 'ok',
              data: { userId: request.userId },
            }))
          },
          { prefix: '/api' },
        )
      },
    })
  })
  afterAll(async () => {
    await t.close()
  })

  it('answers /healthz while the process is up', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok' })
  })

  it('answers /readyz when the database answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(res.statusCode).toBe(200)
    expect(res.json().checks.database).toBe('ok')
  })

  it('answers unknown /api paths with a JSON 404 envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/does-not-exist?x=1' })
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toContain('application/json')
    expect(res.json()).toMatchObject({ code: 404, success: false, error: 'NOT_FOUND' })
  })

  it('hides the internals of a 5xx', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/test/boom' })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ code: 500, success: false, error: 'INTERNAL_ERROR', message: 'Internal server error' })
    expect(res.body).not.toContain('postgres://')
  })

  it('turns an AppError into its status, code and details', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/test/conflict' })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toEqual({
      code: 409,
      success: false,
      error: 'CONFLICT',
      message: 'Name taken',
      details: { field: 'name' },
    })
  })

  it('rejects invalid and unknown body fields with a 400 validation envelope', async () => {
    const short = await t.app.inject({ method: 'POST', url: '/api/test/echo', payload: { name: 'x' } })
    expect(short.statusCode).toBe(400)
    expect(short.json()).toMatchObject({ code: 400, success: false, error: 'VALIDATION_ERROR' })
    expect(short.json().details[0]).toMatchObject({ path: 'name', in: 'body' })

    const extra = await t.app.inject({ method: 'POST', url: '/api/test/echo', payload: { name: 'Ann', admin: true } })
    expect(extra.statusCode).toBe(400)

    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    })
    expect(broken.statusCode).toBe(400)
    expect(broken.json()).toMatchObject({ success: false, error: 'BAD_REQUEST' })

    const ok = await t.app.inject({ method: 'POST', url: '/api/test/echo', payload: { name: 'Ann' } })
    expect(ok.json()).toEqual({ code: 0, success: true, message: 'ok', data: { name: 'Ann' } })
  })

  it('refuses a body over the size limit', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'a'.repeat(2 * 1024 * 1024) }),
    })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toMatchObject({ success: false, error: 'PAYLOAD_TOO_LARGE' })
  })

  it('requires a valid bearer token where a route asks for a user', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/test/me' })
    expect(anonymous.statusCode).toBe(401)
    expect(anonymous.json()).toMatchObject({ error: 'UNAUTHORIZED' })

    const forged = await t.app.inject({
      method: 'GET',
      url: '/api/test/me',
      headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
    })
    expect(forged.statusCode).toBe(401)

    const { user, token } = await t.login()
    const res = await t.injectWithLogin({ method: 'GET', url: '/api/test/me' }, { token })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ userId: user.id })
  })

  it('sends security headers and a deny-all CSP on API responses', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(res.headers['content-security-policy']).toContain("default-src 'none'")
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['permissions-policy']).toContain('camera=(), ')
    expect(res.headers['permissions-policy']).toContain('microphone=()')
    expect(res.headers['permissions-policy']).toContain('geolocation=()')
    // Every response, refusals and errors too.
    for (const url of ['/api/does-not-exist', '/api/test/me', '/api/test/boom']) {
      expect((await t.app.inject({ method: 'GET', url })).headers['permissions-policy']).toContain('camera=()')
    }
    // Not production: no HSTS, so http://localhost keeps working.
    expect(res.headers['strict-transport-security']).toBeUndefined()
  })

  it('gives every response a request id, keeping a well-formed incoming one', async () => {
    const fresh = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'lb-12345678' } })
    expect(kept.headers['x-request-id']).toBe('lb-12345678')
    const hostile = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    })
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('exposes Prometheus metrics including request durations', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' })
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toContain('http_request_duration_seconds_bucket')
    expect(res.body).toMatch(/route="\/healthz"/)
    expect(res.body).toContain('process_cpu_user_seconds_total')
  })

  it('lists every API route in the OpenAPI document, and serves the docs UI', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json() as { openapi: string; paths: Record<string, unknown> }
    expect(doc.openapi).toBe('3.1.0')
    expect(apiRoutes.length).toBeGreaterThan(0)
    for (const url of apiRoutes) {
      const openApiPath = url.replace(/:(\w+)/g, '{$1}')
      expect(Object.keys(doc.paths), `missing ${url}`).toContain(openApiPath)
    }
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz']))
    const ui = await t.app.inject({ method: 'GET', url: '/api/docs/' })
    expect(ui.statusCode).toBe(200)
    expect(ui.body).toContain('swagger')
  })

  it('compresses large responses for clients that accept it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json', headers: { 'accept-encoding': 'br' } })
    expect(res.headers['content-encoding']).toBe('br')
  })
})

describe('in production', () => {
  const production = {
    NODE_ENV: 'production',
    PUBLIC_URL: 'https://taleweave.example',
    CRON_SECRET: 'c'.repeat(24),
  }

  it('serves neither /metrics nor /api/docs unless configured (ADR 026)', async () => {
    const t = await buildTestApp({ env: production })
    try {
      for (const url of ['/metrics', '/api/docs/json', '/api/docs/', '/api/docs']) {
        const res = await t.app.inject({ method: 'GET', url })
        expect(res.statusCode, url).toBe(404)
        expect(res.body).not.toContain('http_request_duration_seconds')
        expect(res.body).not.toContain('openapi')
      }
    } finally {
      await t.close()
    }
  })

  it('serves /metrics only with its bearer token, and /api/docs with API_DOCS=true', async () => {
    const token = 'metrics-token-'.padEnd(40, 'x')
    const t = await buildTestApp({ env: { ...production, METRICS_TOKEN: token, API_DOCS: 'true' } })
    try {
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${token}x`, token, `Basic ${token}`]) {
        const refused = await t.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: authorization ? { authorization } : {},
        })
        expect(refused.statusCode, String(authorization)).toBe(401)
        expect(refused.body).not.toContain('http_request_duration_seconds')
      }
      const scraped = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      })
      expect(scraped.statusCode).toBe(200)
      expect(scraped.body).toContain('process_cpu_user_seconds_total')
      expect((await t.app.inject({ method: 'GET', url: '/api/docs/json' })).statusCode).toBe(200)
    } finally {
      await t.close()
    }
  })

  it('adds HSTS', async () => {
    const t = await buildTestApp({
      env: {
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://taleweave.example',
        CRON_SECRET: 'c'.repeat(24),
      },
    })
    try {
      const res = await t.app.inject({ method: 'GET', url: '/healthz' })
      expect(res.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains')
    } finally {
      await t.close()
    }
  })
})

describe('readiness when the database is gone', () => {
  it('fails /readyz once the database no longer answers', async () => {
    const t = await buildTestApp()
    try {
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
      await t.database.close()
      const res = await t.app.inject({ method: 'GET', url: '/readyz' })
      expect(res.statusCode).toBe(503)
      expect(res.json()).toEqual({
        status: 'unavailable',
        checks: expect.objectContaining({ database: 'failed' }),
        models: expect.any(Object),
        chatProvider: expect.objectContaining({ kind: 'http' }),
      })
      // Liveness is about the process, not its dependencies.
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
    } finally {
      await t.close().catch(() => {})
    }
  })
})
