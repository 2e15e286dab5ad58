import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable } from '@react-router/node'
import { isbot } from 'isbot'
import type { RenderToPipeableStreamOptions } from 'react-dom/server'
import { renderToPipeableStream } from 'react-dom/server'
import { type EntryContext, type RouterContextProvider, ServerRouter } from 'react-router'
import { createI18n, type I18n, namespacesOf } from '#app/lib/i18n.ts'
import { I18nProvider } from '#app/lib/i18n-react.tsx'
import { resourcesFor } from '#app/lib/i18n-resources.server.ts'
import { appLoadContext, createAppLoadContext } from '#app/lib/load-context.ts'
import { NonceProvider } from '#app/lib/nonce.tsx'
import { type Locale, splitLocalePath } from '#contracts/locales.ts'

export const streamTimeout = 5_000

/** The HTTP server builds each request's context through this export (see server/plugins/web-app.ts). */
export const createLoadContext = createAppLoadContext

/**
 * One translator (ADR 065) per locale and set of namespaces, made on first use and shared by every
 * render after: rendering only reads it (nothing on the server changes its language or loads
 * into it). At most the 21 locales × the routes' namespace sets (a few dozen) instances.
 */
const i18nInstances = new Map<string, I18n>()
function i18nFor(locale: Locale, namespaces: string[]): I18n {
  const key = `${locale}|${namespaces.join(',')}`
  let instance = i18nInstances.get(key)
  if (!instance) {
    instance = createI18n(locale, resourcesFor(locale, namespaces))
    i18nInstances.set(key, instance)
  }
  return instance
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === 'HEAD') {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders })
  }
  const { nonce, forCache } = loadContext.get(appLoadContext)
  const { locale } = splitLocalePath(new URL(request.url).pathname)
  // Only the routes that render count: after an error, the matches stop at the boundary showing it.
  const { matches, errors } = routerContext.staticHandlerContext
  const boundary = errors ? matches.findIndex((m) => m.route.id in errors) : -1
  const rendered = boundary === -1 ? matches : matches.slice(0, boundary + 1)
  const handles = rendered.map((match) => routerContext.routeModules[match.route.id]?.handle)
  const i18n = i18nFor(locale, namespacesOf(handles))

  return new Promise((resolve, reject) => {
    let shellRendered = false
    const userAgent = request.headers.get('user-agent')
    // Crawlers and the render cache get the whole document at once; people get the shell as soon
    // as it is ready.
    const readyOption: keyof RenderToPipeableStreamOptions =
      forCache || (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? 'onAllReady' : 'onShellReady'
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000)

    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <I18nProvider i18n={i18n}>
          <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
        </I18nProvider>
      </NonceProvider>,
      {
        nonce,
        [readyOption]() {
          shellRendered = true
          const body = new PassThrough({
            final(callback) {
              clearTimeout(timeoutId)
              timeoutId = undefined
              callback()
            },
          })
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          responseHeaders.append('Vary', 'Cookie')
          pipe(body)
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          )
        },
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          if (shellRendered) console.error(error)
        },
      },
    )
  })
}
