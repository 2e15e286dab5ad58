// Every locale file is its own small chunk; this table of them (over 200 entries) is a chunk too,
// loaded by app/lib/i18n.client.ts when a page first needs translations it did not arrive with.
export const translationChunks = import.meta.glob<Record<string, unknown>>('../../locales/*/*.json', {
  import: 'default',
})
