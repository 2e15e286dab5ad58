import { api } from '#app/lib/http.ts'
import type { AttachedLorebooks } from '#contracts/lorebooks.ts'

/** `GET /api/roles/:id/lorebooks`: the lorebooks attached to one of the user's characters, in order. */
export function getAttachedLorebooks(roleId: string, signal?: AbortSignal) {
  return api<AttachedLorebooks>(`/roles/${encodeURIComponent(roleId)}/lorebooks`, { signal })
}
