import { createHash } from 'node:crypto'
import { brotliDecompressSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type FormField, multipart } from '#tests/helpers/card-forms.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createRenderCache, SHARED_CACHE_CONTROL } from './render-cache.ts'

// The render cache in front of a stand-in for server rendering that shows the real catalogue: the
// browser test (tests/e2e/render-cache.test.ts) runs it in front of the real pages.

const SCRIPT = 'window.__marker=1'
const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

describe('render cache of anonymous pages (ADR 062)', () => {
  let t: TestApp
  let owner: Awaited<ReturnType<TestApp['login']>>
  const renders: { url: string; adult: boolean }[] = []

  /** The page route as web-app.ts mounts it, rendering the newest public characters' names. */
  const mount = (app: FastifyInstance) => {
    const cache = createRenderCache({
      buildId: 'test-build',
      catalogueVersion: () => app.services.catalogue.listingVersion(),
      policy: (hashes) => app.hashedPagePolicy(hashes),
      async render(request, _reply, adult) {
        renders.push({ url: request.url, adult })
        const list = await app.services.catalogue.listRoles(
          { sort: 'newest', tags: [], page: 1, pageSize: 24 } as never,
          { userId: null, adultConfirmed: adult },
          'en',
        )
        const names = list.items.map((r) => r.name).join(', ')
        const headers = new Headers({ 'content-type': 'text/html; charset=utf-8' })
        if (request.url.includes('set-cookie')) headers.append('set-cookie', 'picked=1; Path=/')
        const body = `<!DOCTYPE html><html><head><script>${SCRIPT}</script></head><body><p>${names}</p>${'<i>filler</i>'.repeat(200)}</body></html>`
        return new Response(body, { status: request.url.includes('missing') ? 404 : 200, headers })
      },
    })
    app.route({
      method: ['GET', 'HEAD', 'POST'],
      url: '/*',
      handler: async (request, reply) => {
        if (cache.handles(request, reply)) return cache.serve(request, reply)
        return reply.type('text/html').header('cache-control', 'private, no-cache').send('<p>rendered for you</p>')
      },
    })
  }

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers })
  const save = async (method: 'POST' | 'PUT', url: string, fields: Record<string, FormField>) => {
    const body = await multipart(fields)
    const res = await t.app.inject({
      method,
      url,
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${owner.token}` },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as { roleId: string }
  }
  const form = (name: string): Record<string, FormField> => ({
    name,
    introduction: 'A privateer who maps the storm belt.',
    firstMessage: 'Welcome aboard.',
    visibility: 'public',
    isAdult: 'false',
  })

  beforeAll(async () => {
    // The version is kept a minute: only the app's write watch can make the next request read it anew.
    t = await buildTestApp({ configure: mount, listingCache: { versionMaxAgeMs: 60_000 } })
    owner = await t.login({ username: 'cache_maker' })
  })
  afterAll(() => t.close())
  beforeEach(() => {
    renders.length = 0
  })

  it('renders an anonymous page once and answers again from the cache, with headers a CDN can use', async () => {
    const first = await get('/characters?sort=a')
    const second = await get('/characters?sort=a', { cookie: 'lang=en' })
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-render-cache']).toBe('miss')
    expect(second.headers['x-render-cache']).toBe('hit')
    expect(second.body).toBe(first.body)
    expect(renders).toHaveLength(1)
    for (const res of [first, second]) {
      expect(res.headers['cache-control']).toBe(SHARED_CACHE_CONTROL)
      expect(res.headers.vary).toBe('Accept-Language, Cookie, Accept-Encoding')
      expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/)
      expect(res.headers['set-cookie']).toBeUndefined()
    }
    expect(second.headers.etag).toBe(first.headers.etag)
    expect((await get('/ar/characters')).headers.vary).toBe('Cookie, Accept-Encoding')
  })

  it('trusts the cached page’s inline scripts by hash, never by a nonce', async () => {
    const res = await get('/characters?sort=csp')
    const policy = String(res.headers['content-security-policy'])
    expect(policy).toContain(`script-src 'self' ${sha(SCRIPT)} 'strict-dynamic'`)
    expect(policy).not.toContain('nonce-')
  })

  it('answers If-None-Match with a 304, and sends brotli compressed once', async () => {
    const first = await get('/characters?sort=etag')
    const notModified = await get('/characters?sort=etag', { 'if-none-match': String(first.headers.etag) })
    expect(notModified.statusCode).toBe(304)
    expect(notModified.body).toBe('')
    expect(notModified.headers.etag).toBe(first.headers.etag)

    const br = await get('/characters?sort=etag', { 'accept-encoding': 'gzip, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.etag).toBe(String(first.headers.etag).replace(/"$/, '-br"'))
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(first.body)
    // Revalidating the compressed copy is answered too.
    const again = await get('/characters?sort=etag', {
      'accept-encoding': 'br',
      'if-none-match': String(br.headers.etag),
    })
    expect(again.statusCode).toBe(304)
    expect(renders).toHaveLength(1)
  })

  it('keeps the age-confirmed page apart from the other', async () => {
    await get('/characters?sort=adult')
    const adult = await get('/characters?sort=adult', { cookie: 'adult_ok=1' })
    expect(adult.headers['x-render-cache']).toBe('miss')
    expect(renders.map((r) => r.adult)).toEqual([false, true])
    expect((await get('/characters?sort=adult', { cookie: 'adult_ok=1; lang=fr' })).headers['x-render-cache']).toBe(
      'hit',
    )
  })

  it('never serves or stores a request with a token, any other cookie, or another method', async () => {
    await get('/characters?sort=private')
    expect(renders).toHaveLength(1)
    for (const res of [
      await get('/characters?sort=private', { authorization: `Bearer ${owner.token}` }),
      await get('/characters?sort=private', { cookie: 'lang=en; session=abc' }),
      await t.app.inject({ method: 'POST', url: '/characters?sort=private', payload: '' }),
    ]) {
      expect(res.body).toBe('<p>rendered for you</p>')
      expect(res.headers['x-render-cache']).toBeUndefined()
      expect(res.headers['cache-control']).toBe('private, no-cache')
    }
    expect(renders).toHaveLength(1)
  })

  it('never keeps a response that sets a cookie or is not a 200, and passes the cookie on privately', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await get('/characters?set-cookie')
      expect(res.headers['x-render-cache']).toBe('bypass')
      expect(res.headers['set-cookie']).toEqual(['picked=1; Path=/'])
      expect(res.headers['cache-control']).toBe('private, no-cache')
      expect(res.headers.etag).toBeUndefined()
      const missing = await get('/characters/missing')
      expect(missing.statusCode).toBe(404)
      expect(missing.headers['x-render-cache']).toBe('bypass')
    }
    expect(renders).toHaveLength(4)
  })

  it('shows a character published or edited on the very next request', async () => {
    const before = await get('/characters')
    expect((await get('/characters')).headers['x-render-cache']).toBe('hit')
    expect(before.body).not.toContain('Captain Cached')

    const { roleId } = await save('POST', '/api/addRole', form('Captain Cached'))
    const published = await get('/characters')
    expect(published.headers['x-render-cache']).toBe('miss')
    expect(published.body).toContain('Captain Cached')
    expect(published.headers.etag).not.toBe(before.headers.etag)

    await save('PUT', `/api/roles/${roleId}`, form('Admiral Cached'))
    const edited = await get('/characters')
    expect(edited.headers['x-render-cache']).toBe('miss')
    expect(edited.body).toContain('Admiral Cached')
    expect(edited.body).not.toContain('Captain Cached')
    expect((await get('/characters')).headers['x-render-cache']).toBe('hit')
  })

  it('renders for the visitor alone when the catalogue version cannot be read', async () => {
    const catalogue = t.app.services.catalogue
    const original = catalogue.listingVersion
    catalogue.listingVersion = async () => {
      throw new Error('database away')
    }
    try {
      // A write first, so the version in memory is forgotten.
      await t.app.inject({ method: 'POST', url: '/characters?sort=away', payload: '' })
      const res = await get('/characters?sort=away')
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-render-cache']).toBe('bypass')
      expect(res.headers['cache-control']).toBe('private, no-cache')
    } finally {
      catalogue.listingVersion = original
    }
  })

  it('renders a page once for requests that miss it together', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => get('/characters?sort=together')))
    expect(new Set(results.map((r) => r.body)).size).toBe(1)
    expect(renders).toHaveLength(1)
  })
})
