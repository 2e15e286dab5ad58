import { createHash } from 'node:crypto'
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { DEFAULT_LOCALE, LOCALE_COOKIE, splitLocalePath } from '#contracts/locales.ts'

/**
 * Rendered HTML of the public pages a visitor without a login sees (ADR 062), per build, catalogue
 * version, adult-content cookie and URL (the URL carries the locale). Bounded by entries and bytes
 * (least recently used go first) and by age: what the catalogue version does not cover (chat
 * counts, featured characters) is at most `ttlMs` old, as in the listing caches.
 */
export type PageCacheOptions = {
  maxEntries?: number
  /** Bytes of HTML held, every encoding counted. */
  maxBytes?: number
  ttlMs?: number
}

export const PAGE_CACHE_DEFAULTS = { maxEntries: 2000, maxBytes: 64 * 1024 * 1024, ttlMs: 30_000 }

/** One rendered page: the HTML, its compressed twins (made on first ask) and what its headers need. */
export type CachedPage = {
  html: Buffer
  /** Strong validator of the HTML; each encoding gets its own suffix. */
  etag: string
  /** `'sha256-…'` sources of every inline script in the HTML, for the page's CSP. */
  scriptHashes: string[]
  /** Response headers of the render worth keeping (content type, link, the route's own). */
  headers: [string, string][]
  br?: Buffer
  gzip?: Buffer
}

export type Encoding = 'br' | 'gzip' | 'identity'

/** Cookies a cacheable page may be asked with: the language choice and the age confirmation. */
const HARMLESS_COOKIES = new Set([LOCALE_COOKIE, ADULT_COOKIE])

/** Pages served from the cache, the locale prefix taken off: home, the character list and pages, blog, pricing. */
const CACHEABLE = /^\/(?:characters(?:\/(?!mine$|lorebooks$|edit(?:\/|$))[^/]+)?|blog(?:\/[^/]+)?|subscribe)?$/
const MAX_URL_LENGTH = 512

/** Whether this request's page may come from, or go to, the shared render cache. */
export function isCacheablePageRequest(request: {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  cookies: Record<string, string | undefined>
}): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  if (request.headers.authorization !== undefined) return false
  for (const name of Object.keys(request.cookies)) if (!HARMLESS_COOKIES.has(name)) return false
  if (request.url.length > MAX_URL_LENGTH) return false
  const query = request.url.indexOf('?')
  const pathname = query === -1 ? request.url : request.url.slice(0, query)
  if (pathname.endsWith('.data')) return false
  return CACHEABLE.test(splitLocalePath(pathname).rest)
}

/** The cache key: everything an anonymous page depends on. */
export function pageKey(parts: { build: string; catalogue: string; adult: boolean; url: string }): string {
  return `${parts.build}\n${parts.catalogue}\n${parts.adult ? 1 : 0}\n${parts.url}`
}

/**
 * `Vary` of a cacheable page: the adult-content cookie changes it; an unprefixed (English) URL
 * redirects other languages' visitors, chosen by the `lang` cookie or Accept-Language.
 */
export function varyOf(url: string): string {
  const { locale } = splitLocalePath(url.split('?', 1)[0] ?? '/')
  return locale === DEFAULT_LOCALE ? 'Accept-Language, Cookie, Accept-Encoding' : 'Cookie, Accept-Encoding'
}

const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi

/** `'sha256-…'` of each inline script's text exactly as the browser hashes it (external scripts skipped). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>()
  for (const [, attributes, text] of html.matchAll(SCRIPT)) {
    if (/\ssrc\s*=/i.test(attributes ?? '')) continue
    hashes.add(
      `'sha256-${createHash('sha256')
        .update(text ?? '', 'utf8')
        .digest('base64')}'`,
    )
  }
  return [...hashes]
}

export function pageOf(html: Buffer, headers: [string, string][]): CachedPage {
  const text = html.toString('utf8')
  return {
    html,
    etag: createHash('sha256').update(html).digest('base64url').slice(0, 27),
    scriptHashes: inlineScriptHashes(text),
    headers,
  }
}

/** The best encoding the client accepts of those kept (brotli, gzip, none). */
export function encodingFor(acceptEncoding: string | string[] | undefined): Encoding {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '')
  const accepted = new Set<string>()
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    if (!name) continue
    const q = params.find((p) => p.trim().startsWith('q='))
    if (q !== undefined && Number(q.trim().slice(2)) === 0) continue
    accepted.add(name)
  }
  if (accepted.has('br')) return 'br'
  if (accepted.has('gzip')) return 'gzip'
  return 'identity'
}

export function etagFor(page: CachedPage, encoding: Encoding): string {
  return `"${page.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`
}

/** Whether If-None-Match names this page (any encoding of it: they are the same HTML). */
export function matchesEtag(page: CachedPage, ifNoneMatch: string | undefined): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch.trim() === '*') return true
  return ifNoneMatch.split(',').some((tag) => {
    const bare = tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '')
    return bare === page.etag || bare === `${page.etag}-br` || bare === `${page.etag}-gzip`
  })
}

const sizeOf = (page: CachedPage) =>
  page.html.length + (page.br?.length ?? 0) + (page.gzip?.length ?? 0) + 200 + page.scriptHashes.length * 60

export function createPageCache(options: PageCacheOptions = {}) {
  const settings = { ...PAGE_CACHE_DEFAULTS, ...options }
  const lru = new LRUCache<string, CachedPage>({
    max: settings.maxEntries,
    maxSize: settings.maxBytes,
    sizeCalculation: sizeOf,
    ttl: settings.ttlMs,
    // Age is checked when an entry is read; no timer per entry.
    ttlAutopurge: false,
  })
  let hits = 0
  let misses = 0
  return {
    get(key: string): CachedPage | undefined {
      const page = lru.get(key)
      if (page) hits++
      else misses++
      return page
    },
    set(key: string, page: CachedPage): void {
      lru.set(key, page)
    },
    /** The page's body in `encoding`, compressed once and kept with it. */
    bodyOf(key: string, page: CachedPage, encoding: Encoding): Buffer {
      if (encoding === 'identity') return page.html
      let body = page[encoding]
      if (!body) {
        body =
          encoding === 'br'
            ? brotliCompressSync(page.html, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9 } })
            : gzipSync(page.html, { level: 9 })
        page[encoding] = body
        // Stored again (a copy: the same object is not measured again) at its new size, its age
        // kept; a page evicted or replaced meanwhile stays out.
        if (lru.peek(key) === page) lru.set(key, { ...page }, { noUpdateTTL: true })
      }
      return body
    },
    stats() {
      return { entries: lru.size, bytes: lru.calculatedSize, hits, misses }
    },
    clear(): void {
      lru.clear()
    },
  }
}

export type PageCache = ReturnType<typeof createPageCache>
