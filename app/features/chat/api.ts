import { ApiError, api, apiStream } from '#app/lib/http.ts'
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

export type CreatedSession = ChatSessionDetail & { firstMessage: ChatMessage | null }
export type MessagePage = { items: ChatMessage[]; nextBefore: number | null; total: number }
export type Swipes = {
  messageId: number
  selectedIndex: number
  swipes: { index: number; content: string; status: string; modelId: string | null; createdAt: string }[]
}

export const createSession = (roleId: string) =>
  api<CreatedSession>('/createSession', { method: 'POST', body: { roleId } })
export const getSession = (sessionId: string, chatModelId?: string) =>
  api<ChatSessionDetail>('/session', { method: 'POST', body: { sessionId, chatModelId } })
export const getMessages = (sessionId: string, before?: number) =>
  api<MessagePage>('/messages', { method: 'POST', body: { sessionId, before, limit: 50 } })
export const getModels = () =>
  api<{
    models: PublicModel[]
    defaultModelId: string
    reachable: Record<string, boolean>
    anyReachable: boolean
    chatProvider: ChatProvider
  }>('/models')
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
} as const

/**
 * Sends, regenerates or continues and reads the server-sent events, calling `onEvent` for each.
 * Resolves when the stream ends; throws ApiError when the call is refused before streaming starts,
 * or TIMEOUT when nothing (not even the server's keep-alive) arrived for CHAT_STREAM_IDLE_LIMIT_MS.
 */
export async function streamReply(
  kind: keyof typeof STREAM_PATHS,
  body: { sessionId: string; message?: string; chatModelId?: string; requestId: string; locale: Locale },
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
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (!reader) throw new ApiError(500, 'INTERNAL_ERROR', 'No response body')
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    let end = buffer.indexOf('\n\n')
    while (end !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
      let name = 'message'
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
      }
      if (data.length === 0) continue
      try {
        onEvent({ event: name, data: JSON.parse(data.join('\n')) } as ChatStreamEvent)
      } catch (error) {
        if (error instanceof SyntaxError) throw new ApiError(500, 'INTERNAL_ERROR', 'Invalid server response format')
        throw error
      }
    }
  }
}
