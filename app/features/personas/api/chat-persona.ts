import { api } from '#app/lib/http.ts'
import type { ChatPersona } from '#contracts/personas.ts'

/** `GET /api/chat/persona`: the persona of a chat (null: the account name). */
export const getChatPersona = (sessionId: string, signal?: AbortSignal) =>
  api<ChatPersona>('/chat/persona', { query: { sessionId }, signal, cache: 'no-cache' })

/** `PUT /api/chat/persona`: the chat's persona from its next reply on. */
export const setChatPersona = (sessionId: string, personaId: string | null) =>
  api<ChatPersona>('/chat/persona', { method: 'PUT', body: { sessionId, personaId } })
