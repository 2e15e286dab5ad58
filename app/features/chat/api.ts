import type { EarlyRequest } from '#app/lib/early-requests.tsx'
import { api, apiStream } from '#app/lib/http.ts'
import { CHAT_STREAM_IDLE_LIMIT_MS } from '#contracts/api.ts'
import type {
  ChatMessage,
  ChatProvider,
  ChatReply,
  ChatSessionDetail,
  ChatStreamEvent,
  PublicModel,
} from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import { readEventStream } from './event-stream.ts'

export type CreatedSession = ChatSessionDetail & { firstMessage: ChatMessage | null }
export type MessagePage = { items: ChatMessage[]; nextBefore: number | null; total: number }
export type Swipes = {
  messageId: number
  selectedIndex: number
  swipes: { index: number; content: string; status: string; modelId: string | null; createdAt: string }[]
}

/** `locale`: the page's, so the greeting is the character's in it (ADR 039). */
export const createSession = (roleId: string, locale: Locale) =>
  api<CreatedSession>('/createSession', { method: 'POST', body: { roleId, locale } })
const sessionBody = (sessionId: string, locale: Locale, chatModelId?: string) => ({ sessionId, chatModelId, locale })
const messagesBody = (sessionId: string, before?: number) => ({ sessionId, before, limit: 50 })

/** `locale`: the page's, so the character is named as its page names it (ADR 039). */
export const getSession = (sessionId: string, locale: Locale, chatModelId?: string) =>
  api<ChatSessionDetail>('/session', { method: 'POST', body: sessionBody(sessionId, locale, chatModelId) })
export const getMessages = (sessionId: string, before?: number) =>
  api<MessagePage>('/messages', { method: 'POST', body: messagesBody(sessionId, before) })

/**
 * The calls a chat makes as it opens (useChatSession), started by the page's HTML before its
 * scripts arrive (ADR 068): the same bodies as getSession, getMessages and getModels send.
 */
export const chatOpeningRequests = (sessionId: string, locale: Locale): EarlyRequest[] => [
  { method: 'POST', path: '/session', body: sessionBody(sessionId, locale) },
  { method: 'POST', path: '/messages', body: messagesBody(sessionId) },
  { method: 'GET', path: '/models' },
]
/** `fresh`: past the browser's one-minute copy of the answer (a re-check after a failed reply). */
export const getModels = (fresh = false) =>
  api<{
    models: PublicModel[]
    defaultModelId: string
    reachable: Record<string, boolean>
    anyReachable: boolean
    chatProvider: ChatProvider
  }>('/models', fresh ? { cache: 'no-cache' } : {})
export const stopReply = (sessionId: string) =>
  api<{ stopped: boolean }>('/chat/stop', { method: 'POST', body: { sessionId } })
export const getSwipes = (sessionId: string, messageId: number) =>
  api<Swipes>('/chat/swipes', { method: 'POST', body: { sessionId, messageId } })
export const selectSwipe = (sessionId: string, messageId: number, swipeIndex: number) =>
  api<{ message: ChatMessage }>('/chat/selectSwipe', { method: 'POST', body: { sessionId, messageId, swipeIndex } })
export const editMessage = (sessionId: string, messageId: number, content: string) =>
  api<{ message: ChatMessage; removedMessageIds: number[] }>('/chat/editMessage', {
    method: 'POST',
    body: { sessionId, messageId, content },
  })
export const deleteMessage = (sessionId: string, messageId: number) =>
  api('/chat/deleteMessage', { method: 'POST', body: { sessionId, messageId } })
export const deleteSession = (sessionId: string) => api('/deleteSession', { method: 'POST', body: { sessionId } })
export const updateMemory = (sessionId: string, note: string) =>
  api<ChatSessionDetail['memory']>('/session/memory/update', { method: 'POST', body: { sessionId, note } })

/** The spec's rule: a reply is only a reply with code 0 and a string `content`. */
export function isValidReply(value: unknown): value is ChatReply {
  return typeof (value as ChatReply | null)?.content === 'string' && typeof (value as ChatReply).reply === 'object'
}

const STREAM_PATHS = {
  send: '/chat/stream',
  regenerate: '/chat/regenerate/stream',
  continue: '/chat/continue/stream',
  speak: '/chat/speak/stream',
} as const

/**
 * Sends, regenerates or continues and reads the server-sent events, calling `onEvent` for each.
 * Resolves when the stream ends; throws ApiError when the call is refused before streaming starts,
 * or TIMEOUT when nothing (not even the server's keep-alive) arrived for CHAT_STREAM_IDLE_LIMIT_MS.
 */
export async function streamReply(
  kind: keyof typeof STREAM_PATHS,
  body: {
    sessionId: string
    message?: string
    chatModelId?: string
    requestId: string
    locale: Locale
    /** In a scene (ADR 052): the member who answers ("speak" needs one). */
    speaker?: string
  },
  onEvent: (event: ChatStreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await apiStream(STREAM_PATHS[kind], {
    method: 'POST',
    body,
    signal,
    // No deadline: a long reply from a slow server takes minutes; the server's keep-alive counts (ADR 032).
    idleTimeoutMs: CHAT_STREAM_IDLE_LIMIT_MS,
  })
  await readEventStream<ChatStreamEvent>(response, onEvent)
}
