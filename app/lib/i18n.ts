import { formatNumber } from '#app/lib/format-number.ts'
import { directionOf, isLocale, type Locale } from '#contracts/locales.ts'

// The pages' translations (ADR 065): what the app used of i18next (a namespace per JSON file,
// nested keys, `ns:key`, plural forms by Intl.PluralRules with `_zero`, `_context` keys,
// `{{name}}` and `{{count, number}}`, `defaultValue`), in a few hundred bytes of the first load
// instead of i18next's 17 kB. The key types stay i18next's (app/lib/i18next.d.ts), so an unknown
// key still fails the typecheck; app/lib/i18n.test.ts checks the output against i18next's.

const DEFAULT_NAMESPACE = 'common'

/** One locale's translations: namespace → its JSON. */
export type Bundle = Record<string, Record<string, unknown>>
/** Loads a namespace of the locale (the browser's lazy chunks); `createI18n`'s `load`. */
type Load = (locale: Locale, namespace: string) => Promise<Record<string, unknown>>
type Options = Record<string, unknown> & { count?: unknown; context?: unknown; defaultValue?: unknown; ns?: unknown }

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

export type I18n = {
  readonly language: Locale
  /** The loaded namespaces (`store.data[locale]`), handed from the server page to the browser. */
  readonly store: { data: Record<string, Bundle> }
  dir(): 'ltr' | 'rtl'
  /** The translation of `key` (`ns:key`, or looked up in `namespaces` in order). */
  translate(namespaces: readonly string[], key: string, options?: Options): string
  /** Whether every namespace is there, or failed to load (its keys show as they are). */
  settled(namespaces: readonly string[]): boolean
  /** Loads the missing namespaces; settles when all have loaded or failed. */
  load(namespaces: readonly string[]): Promise<void>
}

/**
 * The translations of one locale: on the server one per locale and namespace set, shared by every
 * render (read only: nothing loads into it there); one in the browser.
 * `bundle` holds what is already known; the browser loads the rest on demand through `load`.
 */
export function createI18n(locale: Locale, bundle: Bundle, load?: Load): I18n {
  const data: Bundle = { ...bundle }
  const failed = new Set<string>()
  const pending = new Map<string, Promise<void>>()
  const loading = new Map<string, Promise<void>>()
  const loadOne = (namespace: string): Promise<void> => {
    let promise = pending.get(namespace)
    if (!promise) {
      promise = (load ? retry(() => load(locale, namespace)) : Promise.reject(new Error('no loader'))).then(
        (content) => {
          data[namespace] = content
        },
        () => {
          failed.add(namespace)
        },
      )
      pending.set(namespace, promise)
    }
    return promise
  }
  return {
    language: locale,
    store: { data: { [locale]: data } },
    dir: () => directionOf(locale),
    translate: (namespaces, key, options) => translate(locale, data, namespaces, key, options),
    // Without `load` (the server, which has every namespace of the page) there is nothing to wait for.
    settled: (namespaces) => !load || namespaces.every((ns) => ns in data || failed.has(ns)),
    // One promise per set of namespaces, so a suspended component finds the same one again.
    load: (namespaces) => {
      const key = namespaces.join(',')
      let promise = loading.get(key)
      if (!promise) {
        promise = Promise.all(namespaces.filter((ns) => !(ns in data)).map(loadOne)).then(() => undefined)
        loading.set(key, promise)
      }
      return promise
    },
  }
}

/** Three tries, 350 ms then 700 ms apart (a chunk fetch that failed once on a flaky connection). */
async function retry<T>(read: () => Promise<T>, tries = 3, delayMs = 350): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (tries <= 1) throw error
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    return retry(read, tries - 1, delayMs * 2)
  }
}

function translate(locale: Locale, data: Bundle, namespaces: readonly string[], key: string, options: Options = {}) {
  const separator = key.indexOf(':')
  const path = separator === -1 ? key : key.slice(separator + 1)
  const fromOption = typeof options.ns === 'string' ? [options.ns] : (options.ns as string[] | undefined)
  const lookIn = separator === -1 ? (fromOption ?? namespaces) : [key.slice(0, separator)]
  // Most calls have neither a count nor a context: one key to look for, nothing to build.
  const candidates =
    options.count === undefined && options.context === undefined ? [path] : keysFor(locale, path, options)
  for (const ns of lookIn) {
    for (const candidate of candidates) {
      const found = lookUpIn(data[ns], candidate)
      if (typeof found === 'string') return interpolate(locale, found, options)
    }
  }
  return typeof options.defaultValue === 'string' ? interpolate(locale, options.defaultValue, options) : path
}

/**
 * The keys to try, best first, as i18next orders them: with a context, `key_context` forms before
 * `key` forms; with a count, `_zero` (for 0) before the plural category, before the bare key.
 */
function keysFor(locale: Locale, key: string, { count, context }: Options): string[] {
  const plural = count !== undefined && typeof count !== 'string'
  const forms = (base: string) =>
    plural
      ? [...(count === 0 ? [`${base}_zero`] : []), `${base}_${pluralRules(locale).select(count as number)}`, base]
      : [base]
  const withContext = (typeof context === 'string' || typeof context === 'number') && context !== ''
  return withContext ? [...forms(`${key}_${context}`), ...forms(key)] : forms(key)
}

const rules = new Map<string, Intl.PluralRules>()
function pluralRules(locale: Locale): Intl.PluralRules {
  let rule = rules.get(locale)
  if (!rule) {
    rule = new Intl.PluralRules(locale)
    rules.set(locale, rule)
  }
  return rule
}

/**
 * What each dotted key of a namespace resolved to, per namespace object (they never change once
 * loaded). A page asks for the same few hundred keys on every render; splitting and walking each
 * one was the translator's largest cost in a server-rendering profile.
 */
const resolved = new WeakMap<Record<string, unknown>, Map<string, unknown>>()

function lookUpIn(tree: Record<string, unknown> | undefined, key: string): unknown {
  if (!tree) return undefined
  let known = resolved.get(tree)
  if (!known) {
    known = new Map()
    resolved.set(tree, known)
  }
  const hit = known.get(key)
  if (hit !== undefined) return hit
  const value = lookUp(tree, key)
  // Only keys the namespace has are kept, so the map is bounded by the namespace's own size
  // whatever keys a request makes the page ask for.
  if (value !== undefined) known.set(key, value)
  return value
}

function lookUp(tree: Record<string, unknown> | undefined, key: string): unknown {
  if (!tree) return undefined
  if (key in tree) return tree[key]
  let node: unknown = tree
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node
}

/**
 * `{{name}}` and `{{name, number}}` (the locale's number format). As i18next: a name given as
 * undefined becomes empty, a name not given stays as written.
 */
function interpolate(locale: Locale, text: string, options: Options): string {
  if (!text.includes('{{')) return text
  return text.replace(/\{\{(.+?)\}\}/g, (written, inner: string) => {
    const [name = '', format] = inner.split(',').map((part) => part.trim())
    const value = lookUp(options, name)
    if (value === undefined) return name in options ? '' : written
    if (format === 'number') return isLocale(locale) ? formatNumber(locale, value as number) : String(value)
    return value === null ? '' : String(value)
  })
}
