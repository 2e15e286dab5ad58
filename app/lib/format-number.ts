import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'

// Numbers through Intl in the page's locale. Apart from the other formats (format.ts) because the
// translator uses it on every page: what the shell imports is part of every first load.
// Formatters are cached: building one is far slower than using it.
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>()

export function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
  key: string,
  make: () => T,
): T {
  let format = cache.get(key) as T | undefined
  if (!format) {
    format = make()
    cache.set(key, format)
  }
  return format
}

// The plain format (no options, what cards and counts use) is keyed without serialising options.
export const numberFormat = (locale: Locale, options?: Intl.NumberFormatOptions) =>
  cached(
    options ? `n|${locale}|${JSON.stringify(options)}` : `n|${locale}`,
    () => new Intl.NumberFormat(LOCALE_TAGS[locale], options),
  )

export function formatNumber(locale: Locale, value: number, options?: Intl.NumberFormatOptions): string {
  return numberFormat(locale, options).format(value)
}
