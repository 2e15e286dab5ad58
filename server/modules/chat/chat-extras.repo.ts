import { and, eq } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { chatSessions } from '#db/schema/chat.ts'
import { liveSession } from './chat-rows.repo.ts'

/** The small things of issue 22 item 8 (ADR 053): the author's note, and the transaction a paid draft settles in. */
export function createChatExtrasRepo(db: Db) {
  return {
    /** Writes the chat's author's note; null when the chat is not the user's (or deleted). */
    async writeAuthorNote(sessionId: string, userId: string, note: { text: string; depth: number }) {
      const [row] = await db
        .update(chatSessions)
        .set({ authorNote: note.text, authorNoteDepth: note.depth })
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession))
        .returning({ text: chatSessions.authorNote, depth: chatSessions.authorNoteDepth })
      return row ?? null
    },

    /** Runs `work` in one transaction: a premium draft's price is settled there (impersonate.ts). */
    inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(work)
    },
  }
}
