import { and, asc, count, eq, gt, lt, type SQL, sql } from 'drizzle-orm'
import type { MessageStatus } from '#contracts/chat.ts'
import type { Db } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { subscriptions } from '#db/schema/payments.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type { ChatMessageRow }

/** Characters of the newest message kept on the session for the chat list. */
const PREVIEW_LENGTH = 200

// The indexes are written DESC NULLS LAST (drizzle-kit's way); the same order lets PostgreSQL use them.
const newestFirst = sql`${chatMessages.id} desc nulls last`

export type ReplyToStore = {
  sessionId: string
  /** Add an alternative to this reply; null (or a reply deleted meanwhile) makes a new message. */
  messageId: number | null
  content: string
  tokens: number
  status: MessageStatus
  modelId: string
  diamondsSpent: number
  requestId: string | null
}

export type SessionView = NonNullable<Awaited<ReturnType<ReturnType<typeof createChatRepo>['findSession']>>>

export function createChatRepo(db: Db) {
  /** Puts the newest message's start on the session and moves it to the top of the user's list. */
  async function touchSession(tx: Tx, sessionId: string, modelId?: string) {
    await tx
      .update(chatSessions)
      .set({
        lastMessagePreview: sql`(select left(${chatMessages.content}, ${PREVIEW_LENGTH}) from ${chatMessages} where ${chatMessages.sessionId} = ${sessionId} order by ${newestFirst} limit 1)`,
        updatedAt: new Date(),
        ...(modelId ? { modelId } : {}),
      })
      .where(eq(chatSessions.id, sessionId))
  }

  const sessionColumns = {
    id: chatSessions.id,
    userId: chatSessions.userId,
    modelId: chatSessions.modelId,
    memoryNote: chatSessions.memoryNote,
    memoryThroughId: chatSessions.memoryThroughId,
    memoryVersion: chatSessions.memoryVersion,
    memoryUpdatedAt: chatSessions.memoryUpdatedAt,
    lastMessagePreview: chatSessions.lastMessagePreview,
    createdAt: chatSessions.createdAt,
    updatedAt: chatSessions.updatedAt,
    rolePublicId: roles.publicId,
    roleName: roles.name,
    roleAvatarImageId: roles.avatarImageId,
    roleAvatarBlurredImageId: roles.avatarBlurredImageId,
    roleIsAdult: roles.isAdult,
  }

  // The queries between the user pressing send and the model being asked, prepared once: building
  // Drizzle's SQL costs more CPU than PostgreSQL spends running them (bench/chat-overhead.ts).
  const findSessionQuery = db
    .select({
      ...sessionColumns,
      roleId: chatSessions.roleId,
      roleDescription: roles.description,
      rolePersonality: roles.personality,
      roleScenario: roles.scenario,
      roleIntroduction: roles.introduction,
      roleExampleDialogue: roles.exampleDialogue,
      roleCharacterBook: roles.characterBook,
      roleSystemPrompt: sql<string | null>`${roles.cardExtras}->>'systemPrompt'`,
      rolePostHistoryInstructions: sql<string | null>`${roles.cardExtras}->>'postHistoryInstructions'`,
      username: users.username,
      // The paid plan the user holds now (the rule of payments' currentSubscription), read here to
      // save the model call one more query; null means the free plan.
      paidPlanId: sql<
        string | null
      >`(select ${subscriptions.planId} from ${subscriptions} where ${subscriptions.userId} = ${chatSessions.userId} and ${subscriptions.currentPeriodEnd} > now())`,
    })
    .from(chatSessions)
    .innerJoin(users, eq(users.id, chatSessions.userId))
    .leftJoin(roles, eq(roles.id, chatSessions.roleId))
    .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('chat_find_session')
  const recentQuery = db
    .select()
    .from(chatMessages)
    .where(eq(chatMessages.sessionId, sql.placeholder('sessionId')))
    .orderBy(newestFirst)
    .limit(sql.placeholder('limit'))
    .prepare('chat_recent_messages')
  const recentBeforeQuery = db
    .select()
    .from(chatMessages)
    .where(
      and(eq(chatMessages.sessionId, sql.placeholder('sessionId')), lt(chatMessages.id, sql.placeholder('before'))),
    )
    .orderBy(newestFirst)
    .limit(sql.placeholder('limit'))
    .prepare('chat_recent_messages_before')
  // One statement, the session's preview riding along as a CTE: no transaction round trips.
  const insertUserMessageQuery = db
    .with(
      db
        .$with('touch', { id: chatSessions.id })
        .as(
          sql`update ${chatSessions} set last_message_preview = left(${sql.placeholder('content')}, ${PREVIEW_LENGTH}), updated_at = now(), model_id = ${sql.placeholder('modelId')} where id = ${sql.placeholder('sessionId')} returning id`,
        ),
    )
    .insert(chatMessages)
    .values({
      sessionId: sql.placeholder('sessionId'),
      author: 'user',
      content: sql.placeholder('content'),
      tokens: sql.placeholder('tokens'),
      requestId: sql.placeholder('requestId'),
    })
    .onConflictDoNothing()
    .returning()
    .prepare('chat_insert_user_message')

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

    /** The session when it belongs to `userId`; null for anyone else's and for unknown ones alike. */
    async findSession(sessionId: string, userId: string) {
      const [row] = await findSessionQuery.execute({ sessionId, userId })
      return row ?? null
    },

    /** One page of the user's sessions, most recently active first. */
    async listSessions(userId: string, offset: number, limit: number) {
      return db
        .select(sessionColumns)
        .from(chatSessions)
        .leftJoin(roles, eq(roles.id, chatSessions.roleId))
        .where(eq(chatSessions.userId, userId))
        .orderBy(sql`${chatSessions.updatedAt} desc nulls last`, sql`${chatSessions.id} desc nulls last`)
        .limit(limit)
        .offset(offset)
    },

    async countSessions(userId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(chatSessions).where(eq(chatSessions.userId, userId))
      return row?.n ?? 0
    },

    async deleteSession(sessionId: string, userId: string): Promise<boolean> {
      const deleted = await db
        .delete(chatSessions)
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId)))
        .returning({ id: chatSessions.id })
      return deleted.length > 0
    },

    /** Messages newest first, older than `before` when given (keyset on the id). */
    async recentMessages(sessionId: string, options: { before?: number | undefined; limit: number }) {
      return options.before === undefined
        ? recentQuery.execute({ sessionId, limit: options.limit })
        : recentBeforeQuery.execute({ sessionId, before: options.before, limit: options.limit })
    },

    async countMessages(sessionId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(chatMessages).where(eq(chatMessages.sessionId, sessionId))
      return row?.n ?? 0
    },

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
        })
        .from(chatMessages)
        .where(and(...conditions))
        .orderBy(asc(chatMessages.id))
        .limit(limit)
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

    /**
     * Stores the user's message. With a request id already used in the session nothing is stored
     * and null comes back: the call is a repeat.
     */
    async insertUserMessage(input: {
      sessionId: string
      content: string
      tokens: number
      requestId: string | null
      modelId: string
    }): Promise<ChatMessageRow | null> {
      const [row] = await insertUserMessageQuery.execute(input)
      return row ?? null
    },

    /**
     * Stores a generated reply as a new message or as a new alternative of an existing one (then
     * selected), in one transaction with `withinTransaction` (the diamond spend, given the id of the
     * new alternative): if that throws, nothing is stored.
     */
    async storeReply(
      reply: ReplyToStore,
      withinTransaction?: (tx: Tx, swipeId: number) => Promise<unknown>,
    ): Promise<ChatMessageRow> {
      return db.transaction(async (tx) => {
        const fields = {
          content: reply.content,
          tokens: reply.tokens,
          status: reply.status,
          modelId: reply.modelId,
          diamondsSpent: reply.diamondsSpent,
        }
        let messageId: number | null = null
        if (reply.messageId !== null) {
          const [locked] = await tx
            .select({ id: chatMessages.id })
            .from(chatMessages)
            .where(and(eq(chatMessages.id, reply.messageId), eq(chatMessages.sessionId, reply.sessionId)))
            .for('update')
          messageId = locked?.id ?? null
        }
        const isNew = messageId === null
        if (messageId === null) {
          const [created] = await tx
            .insert(chatMessages)
            .values({ sessionId: reply.sessionId, author: 'assistant', ...fields })
            .returning({ id: chatMessages.id })
          if (!created) throw new Error('reply was not stored')
          messageId = created.id
        }
        const [swipe] = await tx
          .insert(chatSwipes)
          .values({ messageId, requestId: reply.requestId, ...fields })
          .returning({ id: chatSwipes.id })
        if (!swipe) throw new Error('reply was not stored')
        await withinTransaction?.(tx, swipe.id)
        const [message] = await tx
          .update(chatMessages)
          .set({
            ...fields,
            swipeId: swipe.id,
            // The new alternative goes last and is the one shown.
            swipeIndex: isNew ? 0 : sql`${chatMessages.swipeCount}`,
            swipeCount: isNew ? 1 : sql`${chatMessages.swipeCount} + 1`,
          })
          .where(eq(chatMessages.id, messageId))
          .returning()
        if (!message) throw new Error('reply was not stored')
        await touchSession(tx, reply.sessionId, reply.modelId)
        return message
      })
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

export type ChatRepo = ReturnType<typeof createChatRepo>
