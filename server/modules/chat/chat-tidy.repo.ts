import { createHash } from 'node:crypto'
import { and, count, desc, eq, isNotNull, isNull, lte, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSessions } from '#db/schema/chat.ts'
import { chatMessageSearch } from '#db/schema/chat-search.ts'
import { roles } from '#db/schema/roles.ts'
import { hasUserMessage, liveSession, sessionColumns, visibleChatRole } from './chat-rows.repo.ts'

/** How `writeWords` knows the text it split is still the message's (an edit may have come between). */
export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex')

/**
 * Find and tidy (ADR 048): a character's chats, the empty chat a "New chat" reuses, titles, pins,
 * deletion with undo and its purge, and message search over `chat_message_search`.
 */
export function createChatTidyRepo(db: Db) {
  const own = (sessionId: string, userId: string) =>
    and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession)

  return {
    /**
     * The user's newest chat with the character that holds nothing but the greeting, with that
     * greeting (null when the character has none).
     */
    async findEmptySession(userId: string, roleId: number) {
      const [session] = await db
        .select({ id: chatSessions.id })
        .from(chatSessions)
        .where(
          and(
            eq(chatSessions.userId, userId),
            eq(chatSessions.roleId, roleId),
            liveSession,
            sql`not ${hasUserMessage}`,
          ),
        )
        .orderBy(desc(chatSessions.updatedAt), desc(chatSessions.id))
        .limit(1)
      if (!session) return null
      const messages: ChatMessageRow[] = await db
        .select()
        .from(chatMessages)
        .where(eq(chatMessages.sessionId, session.id))
        .orderBy(chatMessages.id)
        .limit(2)
      // A greeting the user deleted, or a reply kept alone after the user's message went: not a fresh chat.
      if (messages.length > 1) return null
      return { sessionId: session.id, greeting: messages[0] ?? null }
    },

    /** The user's chats with a character (not empty, not deleted), most recently active first. */
    async sessionsWithRole(userId: string, roleId: number, offset: number, limit: number) {
      const where = and(eq(chatSessions.userId, userId), eq(chatSessions.roleId, roleId), liveSession, hasUserMessage)
      const [rows, [total]] = await Promise.all([
        db
          .select(sessionColumns)
          .from(chatSessions)
          .leftJoin(roles, visibleChatRole)
          .where(where)
          .orderBy(sql`${chatSessions.updatedAt} desc nulls last`, sql`${chatSessions.id} desc nulls last`)
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(chatSessions).where(where),
      ])
      return { rows, total: total?.n ?? 0 }
    },

    async setTitle(sessionId: string, userId: string, title: string | null) {
      const [row] = await db
        .update(chatSessions)
        .set({ title })
        .where(own(sessionId, userId))
        .returning({ id: chatSessions.id, title: chatSessions.title, pinnedAt: chatSessions.pinnedAt })
      return row ?? null
    },

    async setPinned(sessionId: string, userId: string, pinned: boolean) {
      const [row] = await db
        .update(chatSessions)
        .set({ pinnedAt: pinned ? sql`coalesce(${chatSessions.pinnedAt}, now())` : null })
        .where(own(sessionId, userId))
        .returning({ id: chatSessions.id, title: chatSessions.title, pinnedAt: chatSessions.pinnedAt })
      return row ?? null
    },

    /** Marks the chat deleted now; returns when, or null when it is not the user's (or already deleted). */
    async markDeleted(sessionId: string, userId: string): Promise<Date | null> {
      const [row] = await db
        .update(chatSessions)
        .set({ deletedAt: sql`now()` })
        .where(own(sessionId, userId))
        .returning({ deletedAt: chatSessions.deletedAt })
      return row?.deletedAt ?? null
    },

    /** Brings back a chat deleted at or after `since`; false when there is none (too late, or not theirs). */
    async restore(sessionId: string, userId: string, since: Date): Promise<boolean> {
      const restored = await db
        .update(chatSessions)
        .set({ deletedAt: null })
        .where(
          and(
            eq(chatSessions.id, sessionId),
            eq(chatSessions.userId, userId),
            isNotNull(chatSessions.deletedAt),
            sql`${chatSessions.deletedAt} >= ${since.toISOString()}::timestamptz`,
          ),
        )
        .returning({ id: chatSessions.id })
      return restored.length > 0
    },

    /**
     * Removes the chat if it was deleted at or before `before`. `restored`: it is not deleted (any
     * more); `wait`: deleted later than that (deleted again after an undo), with when.
     */
    async purge(
      sessionId: string,
      before: Date,
    ): Promise<{ kind: 'gone' } | { kind: 'restored' } | { kind: 'wait'; deletedAt: Date }> {
      const removed = await db
        .delete(chatSessions)
        .where(
          and(
            eq(chatSessions.id, sessionId),
            isNotNull(chatSessions.deletedAt),
            lte(chatSessions.deletedAt, sql`${before.toISOString()}::timestamptz`),
          ),
        )
        .returning({ id: chatSessions.id })
      if (removed.length > 0) return { kind: 'gone' }
      const [left] = await db
        .select({ deletedAt: chatSessions.deletedAt })
        .from(chatSessions)
        .where(eq(chatSessions.id, sessionId))
      return left?.deletedAt ? { kind: 'wait', deletedAt: left.deletedAt } : { kind: 'restored' }
    },

    /** Messages of the user's chats whose words are still to be split, with their chat's language. */
    async messagesToIndex(userId: string, limit: number) {
      return db
        .select({
          messageId: chatMessageSearch.messageId,
          content: chatMessages.content,
          language: chatSessions.language,
        })
        .from(chatMessageSearch)
        .innerJoin(chatSessions, eq(chatSessions.id, chatMessageSearch.sessionId))
        .innerJoin(chatMessages, eq(chatMessages.id, chatMessageSearch.messageId))
        .where(and(eq(chatSessions.userId, userId), isNull(chatMessageSearch.words)))
        .limit(limit)
    },

    /** Stores the words of each message, unless its text changed since it was read (`hash`). */
    async writeWords(entries: { messageId: number; hash: string; words: string }[]) {
      if (entries.length === 0) return
      const values = sql.join(
        entries.map((e) => sql`(${e.messageId}::bigint, ${e.hash}::text, ${e.words}::text)`),
        sql`, `,
      )
      await db.execute(sql`
        update ${chatMessageSearch} x set words = v.words
        from (values ${values}) as v(message_id, hash, words), ${chatMessages} m
        where x.message_id = v.message_id and m.id = v.message_id
          and encode(sha256(convert_to(m.content, 'UTF8')), 'hex') = v.hash`)
    },

    /**
     * A page of the user's messages matching `tsQuery` (their live chats that hold a message of
     * theirs), newest first, with their chat and its character, and how many match.
     */
    async searchMessages(userId: string, tsQuery: string, offset: number, limit: number) {
      const where = and(
        eq(chatSessions.userId, userId),
        liveSession,
        hasUserMessage,
        sql`${chatMessageSearch.search} @@ to_tsquery('simple', ${tsQuery})`,
      )
      const [rows, [total]] = await Promise.all([
        db
          .select({
            ...sessionColumns,
            messageId: chatMessages.id,
            author: chatMessages.author,
            content: chatMessages.content,
            messageCreatedAt: chatMessages.createdAt,
          })
          .from(chatMessageSearch)
          .innerJoin(chatSessions, eq(chatSessions.id, chatMessageSearch.sessionId))
          .innerJoin(chatMessages, eq(chatMessages.id, chatMessageSearch.messageId))
          .leftJoin(roles, visibleChatRole)
          .where(where)
          .orderBy(desc(chatMessages.id))
          .limit(limit)
          .offset(offset),
        db
          .select({ n: count() })
          .from(chatMessageSearch)
          .innerJoin(chatSessions, eq(chatSessions.id, chatMessageSearch.sessionId))
          .where(where),
      ])
      return { rows, total: total?.n ?? 0 }
    },
  }
}
