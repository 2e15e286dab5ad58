import { api } from '#app/lib/http.ts'
import type { OwnRole } from '#contracts/characters.ts'

/**
 * `GET /api/my/roles/:id`: one of the user's characters, as its page shows it (private ones too)
 * and as the edit form loads it. Someone else's character answers 404.
 */
export function getOwnRole(roleId: string, locale: string, signal?: AbortSignal) {
  return api<OwnRole>(`/my/roles/${encodeURIComponent(roleId)}`, { query: { locale }, signal })
}
