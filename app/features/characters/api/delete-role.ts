import { api } from '#app/lib/http.ts'

/** `DELETE /api/roles/:id`: one of the user's own characters. */
export function deleteRole(roleId: string) {
  return api<{ deleted: true }>(`/roles/${encodeURIComponent(roleId)}`, { method: 'DELETE' })
}
