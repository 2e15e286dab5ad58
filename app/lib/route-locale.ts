import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'

/** The locale of a route from its `:lang?` parameter (validated by the locale layout). */
export function routeLocale(params: { lang?: string }): Locale {
  return isLocale(params.lang) ? params.lang : DEFAULT_LOCALE
}
