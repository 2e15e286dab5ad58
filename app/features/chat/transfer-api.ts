import { api, apiFile } from '#app/lib/http.ts'
import type { ChatExportFormat, ChatImportResult } from '#contracts/chat-transfer.ts'

/**
 * `GET /api/chat/sessions/:id/export`: the chat as SillyTavern's JSONL or as Markdown (ADR 051),
 * handed to the browser as a download under the name the server gives (the character's, in UTF-8).
 */
export async function downloadChat(sessionId: string, format: ChatExportFormat) {
  const { blob, fileName } = await apiFile(`/chat/sessions/${encodeURIComponent(sessionId)}/export`, {
    query: { format },
  })
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = fileName ?? (format === 'markdown' ? 'chat.md' : 'chat.jsonl')
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** `POST /api/chat/import`: a SillyTavern JSONL chat file as a new chat with the character `roleId`. */
export function importChat(roleId: string, file: File) {
  const body = new FormData()
  body.append('file', file)
  // A large chat takes the server a while to read and store: more than the usual 10 s.
  return api<ChatImportResult>('/chat/import', { method: 'POST', query: { roleId }, body, timeoutMs: 60_000 })
}
