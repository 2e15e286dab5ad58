import { and, count, eq, type SQL, sql } from 'drizzle-orm'
import type { SummaryFailureCode } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Db } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import {
  hasUserMessage,
  liveSession,
  type MessageJson,
  messageFromJson,
  messageJson,
  sessionColumns,
  touchSession,
  visibleChatRole,
} from './chat-rows.repo.ts'

/** The user's chats: start, list, delete, read page by page; the memory note. */
export function createChatSessionsRepo(db: Db) {
  // A page of messages for the reader, the owner check and the count in one round trip.
  const messagePage = (before: boolean) =>
    db
      .select({
        // Written out with aliases: with one table in FROM, Drizzle leaves column names unqualified.
        total: sql<number>`(select count(*) from ${chatMessages} c where c.session_id = "chat_sessions"."id")`.mapWith(
          Number,
        ),
        page: sql<string>`(
          select coalesce(json_agg(${messageJson(sql`m`)} order by m.id desc), '[]')::text
          from (
            select * from ${chatMessages} c
            where c.session_id = "chat_sessions"."id"${before ? sql` and c.id < ${sql.placeholder('before')}` : sql``}
            order by c.id desc nulls last
            limit ${sql.placeholder('limit')}
          ) m)`,
      })
      .from(chatSessions)
      .where(
        and(
          eq(chatSessions.id, sql.placeholder('sessionId')),
          eq(chatSessions.userId, sql.placeholder('userId')),
          liveSession,
        ),
      )
      .prepare(before ? 'chat_message_page_before' : 'chat_message_page')
  const messagePageQuery = messagePage(false)
  const messagePageBeforeQuery = messagePage(true)
  return {
    /** The character a chat starts with, with what its owner check and greeting need. */
    async findRoleForChat(publicId: string) {
      const [row] = await db
        .select({
          id: roles.id,
          publicId: roles.publicId,
          name: roles.name,
          avatarImageId: roles.avatarImageId,
          avatarBlurredImageId: roles.avatarBlurredImageId,
          visibility: roles.visibility,
          creatorId: roles.creatorId,
          isAdult: roles.isAdult,
          sourceLanguage: roles.sourceLanguage,
          introduction: roles.introduction,
          scenario: roles.scenario,
          firstMessage: roles.firstMessage,
          alternateGreetings: roles.alternateGreetings,
        })
        .from(roles)
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    async usernameOf(userId: string): Promise<string> {
      const [row] = await db.select({ username: users.username }).from(users).where(eq(users.id, userId))
      return row?.username ?? ''
    },

    /**
     * A new session whose first message is the greeting, its alternatives being the character's
     * other greetings; counts the chat on the character. All in one transaction.
     */
    async createSession(input: {
      userId: string
      roleId: number
      greetings: { content: string; tokens: number }[]
    }): Promise<{ sessionId: string; firstMessage: ChatMessageRow | null }> {
      return db.transaction(async (tx) => {
        const [session] = await tx
          .insert(chatSessions)
          .values({ userId: input.userId, roleId: input.roleId })
          .returning({ id: chatSessions.id })
        if (!session) throw new Error('session was not created')
        let firstMessage: ChatMessageRow | null = null
        const [first] = input.greetings
        if (first) {
          const [message] = await tx
            .insert(chatMessages)
            .values({
              sessionId: session.id,
              author: 'assistant',
              content: first.content,
              tokens: first.tokens,
              swipeCount: input.greetings.length,
            })
            .returning()
          if (!message) throw new Error('greeting was not stored')
          const swipes = await tx
            .insert(chatSwipes)
            .values(input.greetings.map((g) => ({ messageId: message.id, status: 'complete' as const, ...g })))
            .returning({ id: chatSwipes.id })
          const [updated] = await tx
            .update(chatMessages)
            .set({ swipeId: swipes[0]?.id ?? null })
            .where(eq(chatMessages.id, message.id))
            .returning()
          firstMessage = updated ?? null
        }
        await tx
          .update(roles)
          .set({ chatCount: sql`${roles.chatCount} + 1` })
          .where(eq(roles.id, input.roleId))
        await touchSession(tx, session.id)
        return { sessionId: session.id, firstMessage }
      })
    },

    /**
     * One page of the user's sessions: pinned ones first, then most recently active first; deleted
     * ones and those holding only the greeting left out (ADR 048).
     */
    async listSessions(userId: string, offset: number, limit: number) {
      return db
        .select(sessionColumns)
        .from(chatSessions)
        .leftJoin(roles, visibleChatRole)
        .where(and(eq(chatSessions.userId, userId), liveSession, hasUserMessage))
        .orderBy(
          sql`(${chatSessions.pinnedAt} is null)`,
          sql`${chatSessions.updatedAt} desc nulls last`,
          sql`${chatSessions.id} desc nulls last`,
        )
        .limit(limit)
        .offset(offset)
    },

    async countSessions(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(chatSessions)
        .where(and(eq(chatSessions.userId, userId), liveSession, hasUserMessage))
      return row?.n ?? 0
    },

    /**
     * Messages of `userId`'s session newest first, older than `before` when given, and how many the
     * session holds; null when the session is not theirs.
     */
    async messagePage(sessionId: string, userId: string, options: { before?: number | undefined; limit: number }) {
      const [row] =
        options.before === undefined
          ? await messagePageQuery.execute({ sessionId, userId, limit: options.limit })
          : await messagePageBeforeQuery.execute({ sessionId, userId, before: options.before, limit: options.limit })
      if (!row) return null
      return { total: row.total, rows: (JSON.parse(row.page) as MessageJson[]).map(messageFromJson) }
    },

    /**
     * Writes the memory note. With `expectedVersion`, only if nobody wrote it since (a summary
     * started from an older note loses to the user's edit). Returns whether it was written.
     */
    async writeMemory(
      sessionId: string,
      note: string,
      options: { throughId?: number; expectedVersion?: number } = {},
    ): Promise<boolean> {
      const conditions: SQL[] = [eq(chatSessions.id, sessionId)]
      if (options.expectedVersion !== undefined)
        conditions.push(eq(chatSessions.memoryVersion, options.expectedVersion))
      const updated = await db
        .update(chatSessions)
        .set({
          memoryNote: note,
          memoryVersion: sql`${chatSessions.memoryVersion} + 1`,
          memoryUpdatedAt: new Date(),
          ...(options.throughId === undefined ? {} : { memoryThroughId: options.throughId }),
        })
        .where(and(...conditions))
        .returning({ id: chatSessions.id })
      return updated.length > 0
    },

    /**
     * The chat's temperature and reply length (null: the model's default) and language (null: the
     * site's; left out: unchanged); checked by the caller.
     */
    async writeSettings(
      sessionId: string,
      settings: { temperature: number | null; replyTokens: number | null; language?: Locale | null | undefined },
    ) {
      const { language, ...rest } = settings
      const [row] = await db
        .update(chatSessions)
        .set(language === undefined ? rest : { ...rest, language })
        .where(eq(chatSessions.id, sessionId))
        .returning({
          temperature: chatSessions.temperature,
          replyTokens: chatSessions.replyTokens,
          language: chatSessions.language,
        })
      return row ?? null
    },

    /** A memory summary failed (ADR 034): one more in a row, when, and why. */
    async recordSummaryFailure(sessionId: string, code: SummaryFailureCode) {
      await db
        .update(chatSessions)
        .set({
          summaryFailures: sql`${chatSessions.summaryFailures} + 1`,
          summaryFailedAt: new Date(),
          summaryFailureCode: code,
        })
        .where(eq(chatSessions.id, sessionId))
    },

    /** A memory summary succeeded: no failure in a row any more. */
    async clearSummaryFailures(sessionId: string) {
      await db
        .update(chatSessions)
        .set({ summaryFailures: 0, summaryFailedAt: null, summaryFailureCode: null })
        .where(and(eq(chatSessions.id, sessionId), sql`${chatSessions.summaryFailures} > 0`))
    },

    async memoryOf(sessionId: string) {
      const [row] = await db
        .select({
          note: chatSessions.memoryNote,
          throughId: chatSessions.memoryThroughId,
          version: chatSessions.memoryVersion,
          updatedAt: chatSessions.memoryUpdatedAt,
        })
        .from(chatSessions)
        .where(eq(chatSessions.id, sessionId))
      return row ?? null
    },
  }
}
