import type { FastifyReply, FastifyRequest } from 'fastify'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import {
  type CachedPage,
  createPageCache,
  encodingFor,
  etagFor,
  isCacheablePageRequest,
  matchesEtag,
  type PageCacheOptions,
  pageKey,
  pageOf,
  varyOf,
} from '#server/lib/page-cache.ts'

/**
 * How long a shared cache (a CDN) may keep a cacheable page: as long as this server's cache does.
 * Browsers revalidate every time (`max-age=0`), which the ETag answers with a 304.
 */
export const SHARED_CACHE_CONTROL = 'public, max-age=0, s-maxage=30, stale-while-revalidate=30'
/** Every other page: the browser may keep it, nothing shared may. */
export const PRIVATE_CACHE_CONTROL = 'private, no-cache'

/** Response headers of a render that are not kept with a cached page (each is set per response). */
const NOT_KEPT = new Set([
  'set-cookie',
  'vary',
  'cache-control',
  'content-length',
  'content-encoding',
  'etag',
  'content-security-policy',
  'transfer-encoding',
  'connection',
])

type Rendered = {
  page: CachedPage
  storable: boolean
  status: number
  /** What a response that is not kept passes on as it came: its cookies, the route's Cache-Control. */
  cookies: string[]
  cacheControl: string | null
}

/**
 * The render cache in front of server rendering (ADR 062): anonymous GETs of the public pages are
 * answered from rendered HTML kept per build, catalogue version, adult-content cookie and URL.
 * Requests with any other cookie or an Authorization header, responses that set a cookie, and
 * anything but GET/HEAD never touch it.
 */
export function createRenderCache(options: {
  cache?: PageCacheOptions
  /** The build's id (its asset manifest version): a new build starts with an empty cache. */
  buildId: string
  /**
   * The catalogue version as the catalogue service keeps it: read at most every 200 ms in
   * production and anew after any write the app answers (`listingVersion`, server/lib/throttled-read.ts).
   */
  catalogueVersion(): string | Promise<string>
  /** The page policy trusting these inline script hashes (from the security-headers plugin). */
  policy(scriptHashes: string[]): string
  /** Renders the page with no nonce, the whole document at once. */
  render(request: FastifyRequest, reply: FastifyReply, adult: boolean): Promise<Response>
}) {
  const cache = createPageCache(options.cache)
  /** Renders in progress, so concurrent misses of one page render it once. */
  const rendering = new Map<string, Promise<Rendered>>()
  async function renderToCache(request: FastifyRequest, reply: FastifyReply, adult: boolean): Promise<Rendered> {
    const response = await options.render(request, reply, adult)
    const html = Buffer.from(await response.arrayBuffer())
    const headers: [string, string][] = []
    for (const [name, value] of response.headers) if (!NOT_KEPT.has(name)) headers.push([name, value])
    const cacheControl = response.headers.get('cache-control')
    const cookies = response.headers.getSetCookie()
    const storable =
      response.status === 200 &&
      cookies.length === 0 &&
      (response.headers.get('content-type') ?? '').startsWith('text/html') &&
      !/private|no-store/i.test(cacheControl ?? '')
    return { page: pageOf(html, headers), storable, status: response.status, cookies, cacheControl }
  }

  function headersOf(reply: FastifyReply, page: CachedPage, state: 'hit' | 'miss' | 'bypass') {
    for (const [name, value] of page.headers) reply.header(name, value)
    reply.header('content-security-policy', options.policy(page.scriptHashes))
    reply.header('x-render-cache', state)
  }

  /** A render that is not kept: sent as it came, for this visitor only. */
  function sendPrivate(reply: FastifyReply, rendered: Rendered) {
    headersOf(reply, rendered.page, 'bypass')
    if (rendered.cookies.length > 0) reply.header('set-cookie', rendered.cookies)
    reply.header('cache-control', rendered.cacheControl ?? PRIVATE_CACHE_CONTROL)
    reply.header('vary', 'Cookie')
    return reply.code(rendered.status).send(rendered.page.html)
  }

  function send(request: FastifyRequest, reply: FastifyReply, key: string, page: CachedPage, state: 'hit' | 'miss') {
    headersOf(reply, page, state)
    const encoding = encodingFor(request.headers['accept-encoding'])
    reply.header('cache-control', SHARED_CACHE_CONTROL)
    reply.header('vary', varyOf(request.url))
    reply.header('etag', etagFor(page, encoding))
    if (matchesEtag(page, request.headers['if-none-match'])) return reply.code(304).send()
    if (encoding !== 'identity') reply.header('content-encoding', encoding)
    return reply.code(200).send(cache.bodyOf(key, page, encoding))
  }

  return {
    /** Whether this request is answered here (else it is rendered for itself, with its own nonce). */
    handles(request: FastifyRequest, reply: FastifyReply): boolean {
      return !reply.hasHeader('set-cookie') && isCacheablePageRequest(request)
    },

    async serve(request: FastifyRequest, reply: FastifyReply) {
      const adult = request.cookies[ADULT_COOKIE] === '1'
      let version: string
      try {
        const known = options.catalogueVersion()
        version = typeof known === 'string' ? known : await known
      } catch {
        // No version (the database is away): rendered for this visitor alone, as any page would be.
        return sendPrivate(reply, await renderToCache(request, reply, adult))
      }
      const key = pageKey({ build: options.buildId, catalogue: version, adult, url: request.url })
      const cached = cache.get(key)
      if (cached) return send(request, reply, key, cached, 'hit')
      let flight = rendering.get(key)
      const own = !flight
      if (!flight) {
        flight = renderToCache(request, reply, adult).finally(() => rendering.delete(key))
        rendering.set(key, flight)
      }
      // A render this request only waited for failed (its own visitor went away?): its own render.
      const rendered = own ? await flight : await flight.catch(() => renderToCache(request, reply, adult))
      if (rendered.storable) {
        if (own) cache.set(key, rendered.page)
        return send(request, reply, key, rendered.page, 'miss')
      }
      // Not a page to keep (an error, a redirect, a route's own private answer): this request's
      // own render, or a render of its own when it waited for another's.
      return sendPrivate(reply, own ? rendered : await renderToCache(request, reply, adult))
    },

    stats: () => cache.stats(),
  }
}

export type RenderCache = ReturnType<typeof createRenderCache>
