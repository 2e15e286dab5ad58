import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import { cached, formatNumber, numberFormat } from './format-number.ts'

// Dates, numbers and prices always go through Intl in the page's locale, never by hand.
// (Plain numbers live in format-number.ts, which every page loads; they are here too.)
export { formatNumber }

const dateFormat = (locale: Locale, options: Intl.DateTimeFormatOptions) =>
  cached(`d|${locale}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(LOCALE_TAGS[locale], options))

/** An average rating with one decimal, in the locale's digits and separator (4,5 in German). */
export function formatRating(locale: Locale, average: number): string {
  return formatNumber(locale, average, { minimumFractionDigits: 1, maximumFractionDigits: 1 })
}

/** A price held in integer minor units (cents) of an ISO 4217 currency. */
export function formatPrice(locale: Locale, minorUnits: number, currency: string): string {
  const format = numberFormat(locale, { style: 'currency', currency })
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(minorUnits / 10 ** digits)
}

/** A calendar date in the locale's own words and order, in UTC so server and browser agree. */
export function formatDate(locale: Locale, date: Date | string, style: 'long' | 'medium' | 'short' = 'long'): string {
  return dateFormat(locale, { dateStyle: style, timeZone: 'UTC' }).format(new Date(date))
}

/** A UTC day (`YYYY-MM-DD`) as a short date without the year, in the locale's words ("Nov 26"). */
export function formatShortDay(locale: Locale, day: string): string {
  return dateFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`))
}

/** A wait from now, in the locale's words ("in 30 seconds", "in 2 minutes"): seconds up to 90, then whole minutes. */
export function formatWait(locale: Locale, seconds: number): string {
  const format = cached(`r|${locale}`, () => new Intl.RelativeTimeFormat(LOCALE_TAGS[locale], { numeric: 'always' }))
  return seconds <= 90 ? format.format(Math.ceil(seconds), 'second') : format.format(Math.ceil(seconds / 60), 'minute')
}

/** A moment (date and time) in the locale's own words, in the reader's time zone (client-only views). */
export function formatDateTime(locale: Locale, date: Date | string): string {
  return dateFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(date))
}

/** A language's name in the page's locale ("anglais" on a French page), from Intl. */
export function formatLanguage(locale: Locale, language: Locale): string {
  const names = new Intl.DisplayNames(LOCALE_TAGS[locale], { type: 'language' })
  return names.of(LOCALE_TAGS[language]) ?? LOCALE_TAGS[language]
}
