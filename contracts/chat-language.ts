import { LOCALE_TAGS, type Locale } from './locales.ts'

/**
 * The tag that names a locale's language (ADR 038), for `Intl.DisplayNames`: Chinese by its script,
 * since "Chinese (China)" would not say which characters to write.
 */
export function languageTag(locale: Locale): string {
  if (locale === 'zh-cn') return 'zh-Hans'
  if (locale === 'zh-tw') return 'zh-Hant'
  return LOCALE_TAGS[locale]
}
