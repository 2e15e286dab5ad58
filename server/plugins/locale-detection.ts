import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { isbot } from 'isbot'
import {
  DEFAULT_LOCALE,
  isLocale,
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  localizePath,
  matchAcceptLanguage,
  splitLocalePath,
} from '#contracts/locales.ts'

// Files, data requests (`/x.data`) and machine endpoints are never redirected.
const NOT_A_PAGE = /^\/(api|builds|assets|healthz|readyz|metrics)(\/|$)|\.[a-z0-9]+$/i

/**
 * First visit without a language cookie: the browser's language (Accept-Language) picks the
 * locale and is remembered for 365 days; landing on an unprefixed page in another language
 * redirects once to its prefixed twin. The selector's choice (same cookie) wins from then on.
 * Crawlers are never redirected, so every URL keeps its own language for search engines.
 */
export default fp(
  async function localeDetection(app: FastifyInstance) {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return
      const [pathname = '/', query] = splitOnce(request.url, '?')
      if (NOT_A_PAGE.test(pathname)) return
      if (isLocale(request.cookies[LOCALE_COOKIE])) return
      const userAgent = request.headers['user-agent']
      if (userAgent && isbot(userAgent)) return

      const detected = matchAcceptLanguage(request.headers['accept-language']) ?? DEFAULT_LOCALE
      reply.setCookie(LOCALE_COOKIE, detected, {
        path: '/',
        maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS,
        sameSite: 'lax',
        secure: app.config.isProduction,
        httpOnly: false,
      })
      const { locale } = splitLocalePath(pathname)
      if (locale === DEFAULT_LOCALE && detected !== DEFAULT_LOCALE && !pathname.startsWith('/en/')) {
        const target = localizePath(detected, pathname) + (query ? `?${query}` : '')
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
