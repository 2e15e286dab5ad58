/** The 21 interface languages. English is the source and has no URL prefix. */
export const LOCALES = [
  'en',
  'zh-cn',
  'zh-tw',
  'es',
  'fr',
  'de',
  'ja',
  'ko',
  'ru',
  'pt',
  'ar',
  'it',
  'hi',
  'th',
  'vi',
  'id',
  'ms',
  'nl',
  'sv',
  'pl',
  'tr',
] as const

export type Locale = (typeof LOCALES)[number]

export const DEFAULT_LOCALE: Locale = 'en'

/** Each language named in itself, as the language selector shows it. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  'zh-cn': '简体中文',
  'zh-tw': '繁體中文',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
  ja: '日本語',
  ko: '한국어',
  ru: 'Русский',
  pt: 'Português',
  ar: 'العربية',
  it: 'Italiano',
  hi: 'हिन्दी',
  th: 'ไทย',
  vi: 'Tiếng Việt',
  id: 'Bahasa Indonesia',
  ms: 'Bahasa Melayu',
  nl: 'Nederlands',
  sv: 'Svenska',
  pl: 'Polski',
  tr: 'Türkçe',
}

/** BCP 47 tags for `Intl` and the `lang` attribute. */
export const LOCALE_TAGS: Record<Locale, string> = {
  en: 'en',
  'zh-cn': 'zh-CN',
  'zh-tw': 'zh-TW',
  es: 'es',
  fr: 'fr',
  de: 'de',
  ja: 'ja',
  ko: 'ko',
  ru: 'ru',
  pt: 'pt',
  ar: 'ar',
  it: 'it',
  hi: 'hi',
  th: 'th',
  vi: 'vi',
  id: 'id',
  ms: 'ms',
  nl: 'nl',
  sv: 'sv',
  pl: 'pl',
  tr: 'tr',
}

const RTL_LOCALES: ReadonlySet<Locale> = new Set<Locale>(['ar'])

export const LOCALE_COOKIE = 'lang'
export const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value)
}

export function directionOf(locale: Locale): 'ltr' | 'rtl' {
  return RTL_LOCALES.has(locale) ? 'rtl' : 'ltr'
}

/** `/fr/characters` for French, `/characters` for English. `path` starts with `/`. */
export function localizePath(locale: Locale, path: string): string {
  if (locale === DEFAULT_LOCALE) return path
  return path === '/' ? `/${locale}` : `/${locale}${path}`
}

/** Splits `/fr/characters?x=1` into the locale and the path without its prefix. */
export function splitLocalePath(path: string): { locale: Locale; rest: string } {
  const match = /^\/([a-z]{2}(?:-[a-z]{2})?)(?=\/|$|\?|#)/.exec(path)
  if (match && isLocale(match[1]) && match[1] !== DEFAULT_LOCALE) {
    const rest = path.slice(match[0].length)
    return { locale: match[1], rest: rest.startsWith('/') ? rest : `/${rest}` }
  }
  return { locale: DEFAULT_LOCALE, rest: path }
}

/**
 * Chooses the best supported locale from an Accept-Language header.
 * `zh-Hant-TW`, `zh-TW`, `zh-HK` → zh-tw; `zh`, `zh-Hans` → zh-cn; `pt-BR` → pt; `nb` → none.
 */
export function matchAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null
  const ranges = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      const quality = q ? Number.parseFloat(q.slice(2)) : 1
      return { tag: tag.trim().toLowerCase(), quality: Number.isFinite(quality) ? quality : 0, index }
    })
    .filter((r) => r.tag && r.tag !== '*' && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
  for (const { tag } of ranges) {
    const locale = localeForTag(tag)
    if (locale) return locale
  }
  return null
}

function localeForTag(tag: string): Locale | null {
  const parts = tag.split('-')
  const language = parts[0]
  if (language === 'zh') {
    const traditional = parts.some((p) => p === 'hant' || p === 'tw' || p === 'hk' || p === 'mo')
    return traditional ? 'zh-tw' : 'zh-cn'
  }
  // Indonesian was once `in`; Malay is sometimes sent as `zsm`.
  if (language === 'in') return 'id'
  if (language === 'zsm') return 'ms'
  return isLocale(language) ? language : null
}
