import { api } from '#app/lib/http.ts'

/** `DELETE /api/personas/:id`: its chats call the user by the account name from then on. */
export const deletePersona = (id: string) =>
  api<{ deleted: true }>(`/personas/${encodeURIComponent(id)}`, { method: 'DELETE' })
