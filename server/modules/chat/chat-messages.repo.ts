import { and, asc, count, eq, gt, lt, type SQL, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSwipes } from '#db/schema/chat.ts'
import { type ReplyToStore, touchSession } from './chat-rows.repo.ts'

/** Single messages and their alternatives (swipes): find, select, edit, delete; repeats by request id. */
export function createChatMessagesRepo(db: Db) {
  return {
    /** Messages after `afterId` (all when null) and before `beforeId`, oldest first. */
    async messagesBetween(sessionId: string, afterId: number | null, beforeId: number, limit: number) {
      const conditions: SQL[] = [eq(chatMessages.sessionId, sessionId), lt(chatMessages.id, beforeId)]
      if (afterId !== null) conditions.push(gt(chatMessages.id, afterId))
      return db
        .select({
          id: chatMessages.id,
          author: chatMessages.author,
          content: chatMessages.content,
          tokens: chatMessages.tokens,
          speakerRoleId: chatMessages.speakerRoleId,
        })
        .from(chatMessages)
        .where(and(...conditions))
        .orderBy(asc(chatMessages.id))
        .limit(limit)
    },

    /**
     * How many messages the character wrote before `beforeId` (a lorebook's `@@activate_only_after`
     * and `@@activate_only_every` count the whole chat, not only what fits in the prompt).
     */
    async countCharacterMessagesBefore(sessionId: string, beforeId: number): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(chatMessages)
        .where(
          and(
            eq(chatMessages.sessionId, sessionId),
            lt(chatMessages.id, beforeId),
            eq(chatMessages.author, 'assistant'),
          ),
        )
      return row?.n ?? 0
    },

    async findMessage(sessionId: string, messageId: number) {
      const [row] = await db
        .select()
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), eq(chatMessages.id, messageId)))
      return row ?? null
    },

    /** The message right after `messageId` in the session, if any. */
    async messageAfter(sessionId: string, messageId: number) {
      const [row] = await db
        .select()
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), gt(chatMessages.id, messageId)))
        .orderBy(asc(chatMessages.id))
        .limit(1)
      return row ?? null
    },

    /** Whether the session holds a message before `messageId` (none: it is the greeting, ADR 050). */
    async hasMessageBefore(sessionId: string, messageId: number): Promise<boolean> {
      const [row] = await db
        .select({ id: chatMessages.id })
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), lt(chatMessages.id, messageId)))
        .limit(1)
      return row !== undefined
    },

    async findUserMessageByRequest(sessionId: string, requestId: string) {
      const [row] = await db
        .select()
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), eq(chatMessages.requestId, requestId)))
      return row ?? null
    },

    async findSwipeByRequest(messageId: number, requestId: string) {
      const [row] = await db
        .select()
        .from(chatSwipes)
        .where(and(eq(chatSwipes.messageId, messageId), eq(chatSwipes.requestId, requestId)))
      return row ?? null
    },

    async listSwipes(messageId: number) {
      return db.select().from(chatSwipes).where(eq(chatSwipes.messageId, messageId)).orderBy(asc(chatSwipes.id))
    },

    /** Shows the alternative at `index` (0-based, oldest first); null when there is none. */
    async selectSwipe(sessionId: string, messageId: number, index: number): Promise<ChatMessageRow | null> {
      return db.transaction(async (tx) => {
        const [swipe] = await tx
          .select()
          .from(chatSwipes)
          .innerJoin(chatMessages, eq(chatMessages.id, chatSwipes.messageId))
          .where(and(eq(chatSwipes.messageId, messageId), eq(chatMessages.sessionId, sessionId)))
          .orderBy(asc(chatSwipes.id))
          .limit(1)
          .offset(index)
        if (!swipe) return null
        const s = swipe.chat_swipes
        const [message] = await tx
          .update(chatMessages)
          .set({
            content: s.content,
            tokens: s.tokens,
            status: s.status,
            modelId: s.modelId,
            diamondsSpent: s.diamondsSpent,
            swipeId: s.id,
            swipeIndex: index,
          })
          .where(eq(chatMessages.id, messageId))
          .returning()
        await touchSession(tx, sessionId)
        return message ?? null
      })
    },

    /** Replaces a user message's text and deletes every later message of the session. */
    async editUserMessage(sessionId: string, messageId: number, content: string, tokens: number) {
      return db.transaction(async (tx) => {
        const [message] = await tx
          .update(chatMessages)
          .set({ content, tokens, editedAt: new Date() })
          .where(
            and(eq(chatMessages.sessionId, sessionId), eq(chatMessages.id, messageId), eq(chatMessages.author, 'user')),
          )
          .returning()
        if (!message) return null
        const removed = await tx
          .delete(chatMessages)
          .where(and(eq(chatMessages.sessionId, sessionId), gt(chatMessages.id, messageId)))
          .returning({ id: chatMessages.id })
        await touchSession(tx, sessionId)
        return { message, removedIds: removed.map((r) => r.id).sort((a, b) => a - b) }
      })
    },

    async deleteMessage(sessionId: string, messageId: number): Promise<boolean> {
      return db.transaction(async (tx) => {
        const deleted = await tx
          .delete(chatMessages)
          .where(and(eq(chatMessages.sessionId, sessionId), eq(chatMessages.id, messageId)))
          .returning({ id: chatMessages.id })
        if (deleted.length === 0) return false
        await touchSession(tx, sessionId)
        return true
      })
    },

    /**
     * Continue (ADR 031): appends `addition` to the shown alternative `swipeId` of reply `messageId`
     * and sets its status; `diamondsSpent` is added to what it cost. In one transaction with
     * `withinTransaction` (the diamond spend). Null when that alternative is no longer the one shown
     * (another alternative was chosen, or the reply deleted, meanwhile): nothing is stored.
     */
    async extendReply(
      reply: Omit<ReplyToStore, 'messageId' | 'content' | 'requestId'> & {
        messageId: number
        swipeId: number
        addition: string
      },
      withinTransaction?: (tx: Tx, swipeId: number) => Promise<unknown>,
    ): Promise<ChatMessageRow | null> {
      return db.transaction(async (tx) => {
        const [swipe] = await tx
          .update(chatSwipes)
          .set({
            content: sql`${chatSwipes.content} || ${reply.addition}`,
            tokens: reply.tokens,
            status: reply.status,
            modelId: reply.modelId,
            diamondsSpent: sql`${chatSwipes.diamondsSpent} + ${reply.diamondsSpent}`,
          })
          .where(
            and(
              eq(chatSwipes.id, reply.swipeId),
              eq(chatSwipes.messageId, reply.messageId),
              sql`exists (select 1 from ${chatMessages} where ${chatMessages.id} = ${reply.messageId}
                and ${chatMessages.sessionId} = ${reply.sessionId} and ${chatMessages.swipeId} = ${reply.swipeId})`,
            ),
          )
          .returning()
        if (!swipe) return null
        await withinTransaction?.(tx, swipe.id)
        const [message] = await tx
          .update(chatMessages)
          .set({
            content: swipe.content,
            tokens: swipe.tokens,
            status: swipe.status,
            modelId: swipe.modelId,
            diamondsSpent: swipe.diamondsSpent,
          })
          .where(eq(chatMessages.id, reply.messageId))
          .returning()
        if (!message) throw new Error('reply was not extended')
        await touchSession(tx, reply.sessionId, reply.modelId)
        return message
      })
    },
  }
}
