import i18next, { type i18n as I18n, type Resource } from 'i18next'
import { initReactI18next } from 'react-i18next'
import { formatNumber } from '#app/lib/format.ts'
import { isLocale, type Locale } from '#contracts/locales.ts'

const DEFAULT_NAMESPACE = 'common'

/** Namespaces a route needs, declared as `export const handle = { i18n: ['home'] }`. */
type I18nHandle = { i18n?: readonly string[] }

export function namespacesOf(handles: readonly unknown[]): string[] {
  const namespaces = new Set<string>([DEFAULT_NAMESPACE])
  for (const handle of handles) {
    const list = (handle as I18nHandle | undefined)?.i18n
    if (Array.isArray(list)) for (const ns of list) namespaces.add(ns)
  }
  return [...namespaces]
}

/**
 * A fresh i18next instance per request on the server and once in the browser.
 * `resources` holds what is already known; the browser loads the rest on demand through `backend`.
 */
export function createI18n(
  locale: Locale,
  resources: Resource,
  backend?: { type: 'backend'; read(lng: string, ns: string, cb: (err: unknown, data?: unknown) => void): void },
): I18n {
  const instance = i18next.createInstance()
  if (backend) instance.use(backend as never)
  instance.use(initReactI18next)
  void instance.init({
    lng: locale,
    // Our locale ids are lowercase (`zh-cn`); without this i18next looks for `zh-CN` and finds nothing.
    lowerCaseLng: true,
    fallbackLng: false,
    supportedLngs: false,
    defaultNS: DEFAULT_NAMESPACE,
    ns: Object.keys(resources[locale] ?? {}),
    resources,
    partialBundledLanguages: true,
    initAsync: false,
    interpolation: { escapeValue: false },
    react: { useSuspense: true },
    returnNull: false,
  })
  // `{{count, number}}` through our cached formatter: i18next caches its own per option set, and
  // the options hold the value, so it built a new Intl.NumberFormat for every distinct number
  // (about an eighth of a character page's hydration on a throttled phone CPU).
  instance.services.formatter?.add('number', (value: unknown, lng: string | undefined) =>
    isLocale(lng) ? formatNumber(lng, value as number) : new Intl.NumberFormat(lng).format(value as number),
  )
  return instance
}
