// Each locale file becomes its own small chunk, fetched the first time a page needs it. A page's own
// translations arrive with its HTML, so the table of chunks (app/lib/i18n-chunks.ts, a few kB) is
// not part of the first load: it is fetched once the browser is idle, or on first need.
type Table = Record<string, () => Promise<Record<string, unknown>>>
let table: Promise<Table> | undefined
const chunkTable = () => {
  table ??= import('./i18n-chunks.ts').then(
    (module) => module.translationChunks,
    (error: unknown) => {
      table = undefined // the next page that needs it tries again
      throw error
    },
  )
  return table
}

export function prefetchTranslationTable() {
  const prefetch = () => void chunkTable().catch(() => {})
  if ('requestIdleCallback' in window) window.requestIdleCallback(prefetch, { timeout: 5000 })
  else setTimeout(prefetch, 2000)
}

/** Loads a namespace of a locale from its chunk (createI18n's `load`). */
export async function loadTranslations(locale: string, namespace: string): Promise<Record<string, unknown>> {
  const load = (await chunkTable())[`../../locales/${locale}/${namespace}.json`]
  if (!load) throw new Error(`No translations for ${locale}/${namespace}`)
  return load()
}
