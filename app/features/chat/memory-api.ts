import { api } from '#app/lib/http.ts'
import type { ChatSessionDetail } from '#contracts/chat.ts'

type Memory = ChatSessionDetail['memory']

/** The chat's memory note as it is now, with the notice of summaries that keep failing (ADR 034). */
export const getMemory = (sessionId: string) => api<Memory>('/session/memory', { method: 'POST', body: { sessionId } })

/** "Try again": the chat's failing memory summary runs now; `queued` false when nothing waits or it runs. */
export const retrySummary = (sessionId: string) =>
  api<{ queued: boolean; memory: Memory }>('/session/memory/retry', { method: 'POST', body: { sessionId } })
