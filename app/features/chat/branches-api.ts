import { api } from '#app/lib/http.ts'
import type { ChatBranchLinks, CreatedBranch } from '#contracts/chat-branches.ts'

/** "Branch from here" (ADR 050): a new chat with the history up to and including the message. */
export const branchFrom = (sessionId: string, messageId: number) =>
  api<CreatedBranch>('/chat/branch', { method: 'POST', body: { sessionId, messageId } })

/** The chat this one was branched from, and the chats branched from it. */
export const getBranchLinks = (sessionId: string) =>
  api<ChatBranchLinks>('/chat/branches', { method: 'POST', body: { sessionId } })
