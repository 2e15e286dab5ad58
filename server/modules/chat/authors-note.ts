import { type AuthorNote, checkAuthorNote, cleanAuthorNote } from '#contracts/chat-writing-aids.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ChatRepo, SessionView } from './chat.repo.ts'
import { invalidSession, UUID } from './chat-views.ts'

/** The note of a chat as the prompt takes it (prompt.ts `authorNote`). */
export const authorNoteOf = (session: Pick<SessionView, 'authorNote' | 'authorNoteDepth'>): AuthorNote => ({
  text: session.authorNote,
  depth: session.authorNoteDepth,
})

/**
 * The author's note of a chat (ADR 053): a standing instruction the prompt places `depth` messages
 * before the end of every reply's conversation. Another user's chat answers as if it did not exist.
 */
export function createAuthorsNote({ repo }: { repo: Pick<ChatRepo, 'writeAuthorNote' | 'findSession'> }) {
  return {
    async update(userId: string, sessionId: string, note: AuthorNote): Promise<AuthorNote> {
      if (!UUID.test(sessionId)) throw invalidSession()
      // The chat first: another user's chat is a 404 whatever the note holds.
      if (!(await repo.findSession(sessionId, userId))) throw invalidSession()
      const problems = checkAuthorNote(note)
      if (problems.length > 0) throw new AppError(400, 'VALIDATION_ERROR', "The author's note is not valid.", problems)
      const written = await repo.writeAuthorNote(sessionId, userId, {
        text: cleanAuthorNote(note.text),
        depth: note.depth,
      })
      if (!written) throw invalidSession()
      return written
    },
  }
}
