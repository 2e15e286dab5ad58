import { api } from '#app/lib/http.ts'

/** `PUT /api/personas/default`: the persona new chats take (null: none, the account name). */
export const setDefaultPersona = (personaId: string | null) =>
  api<{ personaId: string | null }>('/personas/default', { method: 'PUT', body: { personaId } })
