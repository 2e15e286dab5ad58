import type { Bundle } from '#app/lib/i18n.ts'
import type { Locale } from '#contracts/locales.ts'

// Every translation, bundled into the server build; the browser only ever gets what a page uses.
const files = import.meta.glob<Record<string, unknown>>('../../locales/*/*.json', {
  eager: true,
  import: 'default',
})

const byLocale: Record<string, Record<string, Record<string, unknown>>> = {}
for (const [file, content] of Object.entries(files)) {
  const match = /locales\/([^/]+)\/([^/]+)\.json$/.exec(file)
  if (!match) continue
  const [, locale = '', namespace = ''] = match
  byLocale[locale] ??= {}
  byLocale[locale][namespace] = content
}

export function resourcesFor(locale: Locale, namespaces: readonly string[]): Bundle {
  const bundle: Bundle = {}
  for (const ns of namespaces) {
    const content = byLocale[locale]?.[ns]
    if (content) bundle[ns] = content
  }
  return bundle
}
