// Each locale file becomes its own small chunk, fetched the first time a page needs it.
const loaders = import.meta.glob<Record<string, unknown>>('../../locales/*/*.json', { import: 'default' })

export const lazyTranslations = {
  type: 'backend' as const,
  read(locale: string, namespace: string, callback: (error: unknown, data?: unknown) => void) {
    const load = loaders[`../../locales/${locale}/${namespace}.json`]
    if (!load) {
      callback(new Error(`No translations for ${locale}/${namespace}`))
      return
    }
    load().then(
      (data) => callback(null, data),
      (error: unknown) => callback(error),
    )
  },
}
