import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  createPageCache,
  encodingFor,
  etagFor,
  inlineScriptHashes,
  isCacheablePageRequest,
  matchesEtag,
  pageKey,
  pageOf,
  varyOf,
} from './page-cache.ts'

const request = (url: string, extra: { method?: string; cookies?: Record<string, string>; auth?: string } = {}) => ({
  method: extra.method ?? 'GET',
  url,
  headers: extra.auth ? { authorization: extra.auth } : {},
  cookies: extra.cookies ?? {},
})

describe('which page requests the render cache answers', () => {
  it('the public pages in every locale, asked with no cookie or only the language and age cookies', () => {
    for (const url of [
      '/',
      '/ar',
      '/characters',
      '/fr/characters?sort=newest',
      '/characters/3m0eyc7kfp45',
      '/blog',
      '/ja/blog/how-memory-and-diamonds-work',
      '/subscribe',
    ]) {
      expect(isCacheablePageRequest(request(url)), url).toBe(true)
      expect(isCacheablePageRequest(request(url, { cookies: { lang: 'ar', adult_ok: '1' } })), url).toBe(true)
    }
  })

  it('never personal or private pages, other methods, data requests or requests with any other cookie or a token', () => {
    for (const url of [
      '/characters/mine',
      '/characters/lorebooks',
      '/characters/edit/new',
      '/ar/characters/edit/form',
      '/chats',
      '/chat/abc',
      '/account',
      '/console',
      '/login',
      '/characters.data',
      '/en/characters',
    ]) {
      expect(isCacheablePageRequest(request(url)), url).toBe(false)
    }
    expect(isCacheablePageRequest(request('/characters', { method: 'POST' }))).toBe(false)
    expect(isCacheablePageRequest(request('/characters', { cookies: { session: 'x' } }))).toBe(false)
    expect(isCacheablePageRequest(request('/characters', { cookies: { lang: 'en', console_session: 'x' } }))).toBe(
      false,
    )
    expect(isCacheablePageRequest(request('/characters', { auth: 'Bearer x' }))).toBe(false)
    expect(isCacheablePageRequest(request(`/characters?q=${'x'.repeat(600)}`))).toBe(false)
  })
})

describe('what a cached page is kept and sent with', () => {
  it('hashes each inline script exactly as the browser does, skipping external ones', () => {
    const html =
      '<head><script nonce="">window.__I18N__={"a":"<\\u003c"}</script><script src="/x.js"></script></head>' +
      '<body><script data-x="[&quot;/a&gt;&quot;]">go()</script><script type="module">import "/m.js"</script></body>'
    const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`
    expect(inlineScriptHashes(html)).toEqual([
      sha('window.__I18N__={"a":"<\\u003c"}'),
      sha('go()'),
      sha('import "/m.js"'),
    ])
  })

  it('keys pages by build, catalogue version, age confirmation and URL', () => {
    const base = { build: 'b1', catalogue: '7', adult: false, url: '/characters' }
    const keys = new Set([
      pageKey(base),
      pageKey({ ...base, build: 'b2' }),
      pageKey({ ...base, catalogue: '8' }),
      pageKey({ ...base, adult: true }),
      pageKey({ ...base, url: '/ar/characters' }),
    ])
    expect(keys.size).toBe(5)
  })

  it('varies unprefixed pages by language too (they redirect other languages)', () => {
    expect(varyOf('/characters?x=1')).toBe('Accept-Language, Cookie, Accept-Encoding')
    expect(varyOf('/ar/characters')).toBe('Cookie, Accept-Encoding')
  })

  it('negotiates the encoding and answers If-None-Match for any encoding of the same HTML', () => {
    expect(encodingFor('gzip, deflate, br, zstd')).toBe('br')
    expect(encodingFor('gzip, br;q=0')).toBe('gzip')
    expect(encodingFor(undefined)).toBe('identity')
    const page = pageOf(Buffer.from('<p>hi</p>'), [])
    expect(etagFor(page, 'br')).toBe(`"${page.etag}-br"`)
    expect(matchesEtag(page, etagFor(page, 'identity'))).toBe(true)
    expect(matchesEtag(page, `"other", W/${etagFor(page, 'gzip')}`)).toBe(true)
    expect(matchesEtag(page, '"other"')).toBe(false)
    expect(matchesEtag(page, undefined)).toBe(false)
  })
})

describe('the page cache store', () => {
  it('is bounded by entries and bytes, least recently used out first', () => {
    const cache = createPageCache({ maxEntries: 2, maxBytes: 1_000_000 })
    const page = () => pageOf(Buffer.from('x'.repeat(100)), [])
    cache.set('a', page())
    cache.set('b', page())
    cache.get('a')
    cache.set('c', page())
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBeDefined()
    expect(cache.stats().entries).toBe(2)

    const small = createPageCache({ maxEntries: 100, maxBytes: 2_000 })
    for (let i = 0; i < 10; i++) small.set(String(i), pageOf(Buffer.from('y'.repeat(500)), []))
    expect(small.stats().bytes).toBeLessThanOrEqual(2_000)
    expect(small.stats().entries).toBeLessThan(10)
  })

  it('compresses a page once per encoding and counts those bytes', () => {
    const cache = createPageCache()
    const page = pageOf(Buffer.from('<p>hello</p>'.repeat(500)), [])
    cache.set('k', page)
    const before = cache.stats().bytes
    const br = cache.bodyOf('k', page, 'br')
    expect(cache.bodyOf('k', page, 'br')).toBe(br)
    expect(br.length).toBeLessThan(page.html.length)
    expect(cache.stats().bytes).toBe(before + br.length)
  })

  it('drops pages older than its time to live', async () => {
    const cache = createPageCache({ ttlMs: 20 })
    cache.set('k', pageOf(Buffer.from('x'), []))
    expect(cache.get('k')).toBeDefined()
    await new Promise((r) => setTimeout(r, 40))
    expect(cache.get('k')).toBeUndefined()
  })
})
