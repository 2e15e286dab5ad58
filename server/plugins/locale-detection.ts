import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { isbot } from 'isbot'
import {
  DEFAULT_LOCALE,
  isLocale,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  type Locale,
  localizePath,
  matchAcceptLanguage,
  splitLocalePath,
} from '#contracts/locales.ts'

// Files, data requests (`/x.data`), React Router's route discovery (`/__manifest`, asked from every
// page while a visitor navigates) and machine endpoints are never redirected.
const NOT_A_PAGE = /^\/(api|builds|assets|healthz|readyz|metrics|__manifest)(\/|$)|\.[a-z0-9]+$/i

/**
 * First visit without a language cookie: the browser's language (Accept-Language) picks the
 * locale and is remembered for 365 days. From then on the cookie (also written by the language
 * selector, so a choice made there wins over detection) decides: an unprefixed page requested by
 * a visitor whose language is not English redirects to its prefixed twin (`/` → `/ja`), on the
 * first visit and on every return. Crawlers are never redirected, so every URL keeps its own
 * language for search engines.
 */
export default fp(
  async function localeDetection(app: FastifyInstance) {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return
      const [pathname = '/', query] = splitOnce(request.url, '?')
      if (NOT_A_PAGE.test(pathname)) return
      const userAgent = request.headers['user-agent']
      if (userAgent && isbot(userAgent)) return

      const stored = request.cookies[LOCALE_COOKIE]
      let chosen: Locale
      if (isLocale(stored)) chosen = stored
      else {
        chosen = matchAcceptLanguage(request.headers['accept-language']) ?? DEFAULT_LOCALE
        reply.setCookie(LOCALE_COOKIE, chosen, {
          path: '/',
          maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS,
          sameSite: 'lax',
          secure: app.config.isProduction,
          httpOnly: false,
        })
      }
      const { locale } = splitLocalePath(pathname)
      if (locale === DEFAULT_LOCALE && chosen !== DEFAULT_LOCALE && !pathname.startsWith('/en/')) {
        const target = localizePath(chosen, pathname) + (query ? `?${query}` : '')
        return reply
          .header('vary', 'Accept-Language, Cookie')
          .header('cache-control', 'private, no-store')
          .redirect(target, 302)
      }
    })
  },
  { name: 'locale-detection', dependencies: ['@fastify/cookie'] },
)

function splitOnce(value: string, separator: string): [string, string | undefined] {
  const index = value.indexOf(separator)
  return index === -1 ? [value, undefined] : [value.slice(0, index), value.slice(index + 1)]
}
