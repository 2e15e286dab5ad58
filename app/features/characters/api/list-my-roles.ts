import { api } from '#app/lib/http.ts'
import type { MyRole } from '#contracts/characters.ts'

/** `GET /api/my/roles`: the user's characters, newest first, private ones included. */
export function listMyRoles(locale: string, signal?: AbortSignal) {
  return api<{ roles: MyRole[] }>('/my/roles', { query: { locale }, signal })
}
