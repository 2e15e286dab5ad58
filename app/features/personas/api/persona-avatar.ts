import { api } from '#app/lib/http.ts'
import type { Persona } from '#contracts/personas.ts'

/** `PUT /api/personas/:id/avatar`: the picture, kept by the images service (multipart part `avatar`). */
export function uploadPersonaAvatar(id: string, file: File) {
  const form = new FormData()
  form.append('avatar', file)
  return api<Persona>(`/personas/${encodeURIComponent(id)}/avatar`, { method: 'PUT', body: form, timeoutMs: 30_000 })
}

/** `DELETE /api/personas/:id/avatar`. */
export const removePersonaAvatar = (id: string) =>
  api<Persona>(`/personas/${encodeURIComponent(id)}/avatar`, { method: 'DELETE' })
