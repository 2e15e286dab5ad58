import { api } from '#app/lib/http.ts'
import type { LorebookImportResult } from '#contracts/lorebooks.ts'

/** `POST /api/lorebooks/import`: keeps a World Info or V3 lorebook file as one of the user's lorebooks. */
export function importLorebookFile(file: File) {
  const body = new FormData()
  body.append('file', file, file.name)
  return api<LorebookImportResult>('/lorebooks/import', { body, timeoutMs: 60_000 })
}
