import { api } from '#app/lib/http.ts'
import type { CharacterSessions, ChatSearchResult } from '#contracts/chat-tidy.ts'
import type { Locale } from '#contracts/locales.ts'

// Find and tidy one's chats (ADR 048): one fetcher per call.

type Tidied = { id: string; title: string | null; pinned: boolean }

export const searchChats = (q: string, locale: Locale, signal?: AbortSignal) =>
  api<ChatSearchResult>('/chat/search', { method: 'POST', body: { q, locale, pageSize: 50 }, signal })
export const characterSessions = (roleId: string, locale: Locale, signal?: AbortSignal) =>
  api<CharacterSessions>('/chat/sessions/character', { method: 'POST', body: { roleId, locale }, signal })
export const renameSession = (sessionId: string, title: string) =>
  api<Tidied>('/chat/session/rename', { method: 'POST', body: { sessionId, title } })
export const pinSession = (sessionId: string, pinned: boolean) =>
  api<Tidied>('/chat/session/pin', { method: 'POST', body: { sessionId, pinned } })
export const restoreSession = (sessionId: string) =>
  api<{ restored: true }>('/chat/session/restore', { method: 'POST', body: { sessionId } })
