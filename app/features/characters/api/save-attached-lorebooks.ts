import { api } from '#app/lib/http.ts'
import type { AttachedLorebooks } from '#contracts/lorebooks.ts'

/** `PUT /api/roles/:id/lorebooks`: exactly these lorebooks of the user, in this order, on the character. */
export function saveAttachedLorebooks(roleId: string, lorebookIds: string[]) {
  return api<AttachedLorebooks>(`/roles/${encodeURIComponent(roleId)}/lorebooks`, {
    method: 'PUT',
    body: { lorebookIds },
  })
}
