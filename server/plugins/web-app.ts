import { existsSync } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import middie from '@fastify/middie'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { createRequestHandler, type ServerBuild } from 'react-router'
import type { ViteDevServer } from 'vite'
import type { AppLoadContextValues } from '#app/lib/load-context.ts'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import type { PageCacheOptions } from '#server/lib/page-cache.ts'
import type { Services } from '#server/services.ts'
import { createRenderCache, PRIVATE_CACHE_CONTROL } from './render-cache.ts'

type WebAppOptions = {
  /** Output folder of `react-router build` (holds `client/` and `server/`). */
  buildDir: string
  publicUrl: string
  mode: 'production' | 'development'
  /** `npm run dev`: Vite serves the modules with hot reload and SSR loads the app from source. */
  vite?: ViteDevServer
  services: Services
  /** The render cache of anonymous public pages (ADR 062); false turns it off. */
  pageCache?: PageCacheOptions | false
}

type EntryModuleWithContext = { createLoadContext(values: AppLoadContextValues): unknown }

/**
 * Serves the built browser assets and renders every other non-API GET through React Router SSR.
 * Hashed assets are immutable for a year and sent precompressed (brotli or gzip) when the browser
 * accepts it; build metadata is never cached.
 */
export default fp(
  async function webApp(app: FastifyInstance, options: WebAppOptions) {
    const origin = new URL(options.publicUrl).origin
    let getBuild: () => Promise<ServerBuild>
    let handleRequest: ReturnType<typeof createRequestHandler>
    let buildId = ''
    const { vite } = options
    if (vite) {
      await app.register(middie)
      app.use(vite.middlewares)
      getBuild = () => vite.ssrLoadModule('virtual:react-router/server-build') as Promise<ServerBuild>
      // The handler must come from the same module graph as the app, or its context classes differ.
      const router = (await vite.ssrLoadModule('react-router')) as { createRequestHandler: typeof createRequestHandler }
      handleRequest = router.createRequestHandler(getBuild, 'development')
    } else {
      const build = await loadBuild(options.buildDir)
      buildId = build.assets.version
      getBuild = async () => build
      handleRequest = createRequestHandler(build, options.mode)
      await serveBuiltAssets(app, path.resolve(options.buildDir, 'client'))
    }

    const contextFor = (request: FastifyRequest, nonce: string, adultConfirmed: boolean, forCache: boolean) =>
      entryOf(getBuild).then((entry) =>
        entry.createLoadContext({
          nonce,
          forCache,
          requestId: request.id,
          catalogue: options.services.catalogue,
          plans: options.services.entitlements,
          blog: options.services.blog,
          friendshipLinks: options.services.friendshipLinks,
          // Pages are rendered without the bearer token (it lives in the browser's storage), so a
          // page request knows only what cookies say; signed-in specifics load through the API.
          viewer: { userId: null, adultConfirmed },
          features: {
            googleSignIn: options.services.googleSignIn.enabled,
            captcha: {
              provider: options.services.humanVerification.provider,
              siteKey: options.services.humanVerification.siteKey ?? null,
            },
          },
        }),
      )

    // Not under the dev server: its modules change under it, and its page policy has no nonce.
    const renderCache =
      vite || options.pageCache === false
        ? null
        : createRenderCache({
            cache: options.pageCache,
            buildId,
            catalogueVersion: () => options.services.catalogue.listingVersion(),
            policy: (hashes) => app.hashedPagePolicy(hashes),
            render: async (request, reply, adult) =>
              handleRequest(
                toWebRequest(request, reply, origin),
                (await contextFor(request, '', adult, true)) as never,
              ),
          })

    // Page requests carry form posts and React Router data requests; their bodies go to the
    // router untouched, so this scope parses nothing.
    await app.register(async (pages) => {
      pages.removeAllContentTypeParsers()
      pages.addContentTypeParser('*', (_request, _payload, done) => done(null))

      const render = async (request: FastifyRequest, reply: FastifyReply) => {
        // `/api` belongs to the API: an unknown call there is a JSON 404, never a page.
        if (request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?')) {
          return reply.callNotFound()
        }
        if (renderCache?.handles(request, reply)) return renderCache.serve(request, reply)
        const webRequest = toWebRequest(request, reply, origin)
        // Under the dev server the page policy uses no nonce (Vite injects unsigned scripts).
        const nonce = vite ? '' : request.cspNonce
        const context = await contextFor(request, nonce, request.cookies[ADULT_COOKIE] === '1', false)
        const response = await handleRequest(webRequest, context as never)
        return sendWebResponse(reply, response)
      }
      pages.route({
        method: ['GET', 'HEAD', 'POST'],
        url: '/*',
        schema: { hide: true },
        handler: render,
      })
    })
  },
  { name: 'web-app', dependencies: ['security-headers'] },
)

async function entryOf(getBuild: () => Promise<ServerBuild>): Promise<EntryModuleWithContext> {
  return (await getBuild()).entry.module as unknown as EntryModuleWithContext
}

async function loadBuild(buildDir: string): Promise<ServerBuild> {
  const serverEntry = path.resolve(buildDir, 'server', 'index.js')
  if (!existsSync(serverEntry)) {
    throw new Error(`No server build at ${serverEntry}: run \`npm run build\` first.`)
  }
  return (await import(pathToFileURL(serverEntry).href)) as ServerBuild
}

async function serveBuiltAssets(app: FastifyInstance, clientDir: string) {
  await app.register(fastifyStatic, {
    root: clientDir,
    prefix: '/',
    wildcard: false,
    index: false,
    preCompressed: true,
    decorateReply: false,
    setHeaders(reply: FastifyReply, filePath: string) {
      const relative = path.relative(clientDir, filePath).split(path.sep).join('/')
      if (relative.startsWith('assets/')) {
        reply.header('cache-control', 'public, max-age=31536000, immutable')
      } else if (relative.startsWith('builds/')) {
        reply.header('cache-control', 'no-cache')
      } else {
        reply.header('cache-control', 'public, max-age=3600')
      }
    },
  })
}

function toWebRequest(request: FastifyRequest, reply: FastifyReply, origin: string): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else headers.set(name, String(value))
  }
  // The router's signal: aborted when the visitor goes away before the page is sent, not after
  // (an abort builds a DOMException with its stack: ~2% of a page's CPU when done for every one).
  const controller = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  const init: RequestInit & { duplex?: 'half' } = {
    method: request.method,
    headers,
    signal: controller.signal,
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    init.body = Readable.toWeb(request.raw) as ReadableStream
    init.duplex = 'half'
  }
  // The configured public origin, not the Host header, so a forged Host cannot steer redirects.
  return new Request(new URL(request.url, origin), init)
}

function sendWebResponse(reply: FastifyReply, response: Response) {
  reply.status(response.status)
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue
    reply.header(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) reply.header('set-cookie', cookies)
  // A page rendered for one visitor: never kept by a shared cache unless its route says otherwise.
  if (!response.headers.has('cache-control') && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
    reply.header('cache-control', PRIVATE_CACHE_CONTROL)
  }
  if (!response.body) return reply.send()
  return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream))
}
