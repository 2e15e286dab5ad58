import { api, apiStream } from '#app/lib/http.ts'
import { CHAT_STREAM_IDLE_LIMIT_MS } from '#contracts/api.ts'
import type { AuthorNote, ImpersonateDone } from '#contracts/chat-writing-aids.ts'
import type { Locale } from '#contracts/locales.ts'
import { readEventStream } from './event-stream.ts'

/** Sets the chat's author's note (ADR 053). */
export const updateAuthorNote = (sessionId: string, note: AuthorNote) =>
  api<AuthorNote>('/session/author-note/update', { method: 'POST', body: { sessionId, ...note } })

export type ImpersonateEvent =
  | { event: 'start'; data: { modelId: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'done'; data: ImpersonateDone }
  | { event: 'stopped'; data: { content: string } }
  | { event: 'error'; data: { code: string; message: string } & Record<string, unknown> }

/**
 * Impersonate (ADR 053): the model drafts the user's next message; its pieces come as events.
 * Throws ApiError when refused before it starts (another user's chat, the plan, the balance).
 */
export async function streamImpersonate(
  body: { sessionId: string; chatModelId?: string | undefined; locale: Locale },
  onEvent: (event: ImpersonateEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await apiStream('/chat/impersonate/stream', {
    method: 'POST',
    body,
    signal,
    idleTimeoutMs: CHAT_STREAM_IDLE_LIMIT_MS,
  })
  await readEventStream<ImpersonateEvent>(response, onEvent)
}
