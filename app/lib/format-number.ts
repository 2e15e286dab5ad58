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

export const numberFormat = (locale: Locale, options: Intl.NumberFormatOptions) =>
  cached(`n|${locale}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(LOCALE_TAGS[locale], options))

/** The plain format of each locale, without building a key: cards and counts use it most. */
const plain = new Map<Locale, Intl.NumberFormat>()

export function formatNumber(locale: Locale, value: number, options?: Intl.NumberFormatOptions): string {
  if (options) return numberFormat(locale, options).format(value)
  let format = plain.get(locale)
  if (!format) {
    format = numberFormat(locale, {})
    plain.set(locale, format)
  }
  return format.format(value)
}
