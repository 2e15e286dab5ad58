import { api } from '#app/lib/http.ts'
import type { ImportResult } from '#contracts/characters.ts'

/** `POST /api/roles/import`: reads a card file into a draft for the form; nothing is saved. */
export function importCardFile(file: File, locale: string) {
  const body = new FormData()
  body.append('file', file, file.name)
  return api<ImportResult>('/roles/import', { body, query: { locale }, timeoutMs: 60_000 })
}
