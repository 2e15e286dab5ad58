import { api } from '#app/lib/http.ts'

/** `DELETE /api/lorebooks/:id`: one of the user's lorebooks (characters it was attached to lose it). */
export function deleteLorebook(id: string) {
  return api<{ deleted: true }>(`/lorebooks/${encodeURIComponent(id)}`, { method: 'DELETE' })
}
