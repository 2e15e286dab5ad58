import type { ChatBranchLinks } from '#contracts/chat-branches.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ChatRepo } from './chat.repo.ts'
import { invalidSession, requireCharacter } from './chat-views.ts'
import type { ChatSessions } from './sessions.ts'

/** Branches listed with a chat: enough for any real use, and a bound on the answer. */
export const BRANCHES_LISTED = 50

export type ChatBranchesDeps = {
  repo: Pick<ChatRepo, 'branchSession' | 'branchLinks'>
  sessions: Pick<ChatSessions, 'requireSession'>
}

/**
 * Branches (ADR 050): "Branch from here" copies a chat up to one of its messages into a new chat
 * that remembers where it came from. No model is asked, so a branch costs nothing; the original
 * chat is only read.
 */
export function createChatBranches({ repo, sessions }: ChatBranchesDeps) {
  return {
    /**
     * A new chat with the history of `sessionId` up to and including `messageId` (chat-branches.repo.ts
     * says what is copied). A branch is for going on with the story, so the chat's character must
     * still be there for this user.
     */
    async branchFrom(userId: string, sessionId: string, messageId: number) {
      const session = await sessions.requireSession(sessionId, userId)
      requireCharacter(session)
      const branch = await repo.branchSession({ userId, sessionId: session.id, messageId })
      if (!branch) throw AppError.notFound('No such message')
      return { sessionId: branch.sessionId, copiedMessages: branch.copiedMessages }
    },

    /** The chat a chat was branched from, and its branches (newest first). */
    async branchLinks(userId: string, sessionId: string): Promise<ChatBranchLinks> {
      await sessions.requireSession(sessionId, userId)
      const links = await repo.branchLinks(sessionId, userId, BRANCHES_LISTED)
      if (!links) throw invalidSession()
      const ref = (row: { id: string; createdAt: Date; lastMessagePreview: string | null }) => ({
        sessionId: row.id,
        createdAt: row.createdAt.toISOString(),
        lastMessage: row.lastMessagePreview,
      })
      return {
        parent: links.parent ? { ...ref(links.parent), messageId: links.parentMessageId } : null,
        branches: links.branches.map((b) => ({ ...ref(b), fromMessageId: b.parentMessageId })),
      }
    },
  }
}
