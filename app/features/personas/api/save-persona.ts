import { api } from '#app/lib/http.ts'
import type { Persona, PersonaFields } from '#contracts/personas.ts'

/** `POST /api/personas`: a new persona, the default of new chats when `isDefault`. */
export const createPersona = (fields: PersonaFields & { isDefault: boolean }) =>
  api<Persona>('/personas', { method: 'POST', body: fields })

/** `PATCH /api/personas/:id`: its name and description. */
export const updatePersona = (id: string, fields: PersonaFields) =>
  api<Persona>(`/personas/${encodeURIComponent(id)}`, { method: 'PATCH', body: fields })
