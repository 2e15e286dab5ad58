import { and, asc, count, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm'
import type { MessageAuthor, MessageStatus } from '#contracts/chat.ts'
import type { Db } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { heldPlanIdSql } from '#server/modules/entitlements/entitlements.repo.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
export type { ChatMessageRow }

/** Characters of the newest message kept on the session for the chat list. */
const PREVIEW_LENGTH = 200

// The indexes are written DESC NULLS LAST (drizzle-kit's way); the same order lets PostgreSQL use them.
const newestFirst = sql`${chatMessages.id} desc nulls last`

/**
 * A chat's character as the chat's owner may see it now: a public one, or a private one only for
 * its creator. A character its creator made private after others started chatting with it joins
 * for nobody else, so its texts (the new private ones included) reach neither their prompts, nor
 * their pages, nor their data export; to them the chat reads like one whose character is gone.
 */
export const visibleChatRole = and(
  eq(roles.id, chatSessions.roleId),
  or(eq(roles.visibility, 'public'), eq(roles.creatorId, chatSessions.userId)),
)

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

/** A message row as JSON with the keys of `ChatMessageRow` (`messageFromJson` reads it back). */
const messageJson = (row: SQL) =>
  sql`json_build_object(
    'id', ${row}.id, 'sessionId', ${row}.session_id, 'author', ${row}.author,
    'content', ${row}.content, 'tokens', ${row}.tokens, 'status', ${row}.status,
    'modelId', ${row}.model_id, 'diamondsSpent', ${row}.diamonds_spent,
    'swipeId', ${row}.swipe_id, 'swipeIndex', ${row}.swipe_index, 'swipeCount', ${row}.swipe_count,
    'requestId', ${row}.request_id, 'createdAt', ${row}.created_at, 'editedAt', ${row}.edited_at)`

type MessageJson = Omit<ChatMessageRow, 'id' | 'swipeId' | 'createdAt' | 'editedAt'> & {
  id: number | string
  swipeId: number | string | null
  createdAt: string
  editedAt: string | null
}
function messageFromJson(message: MessageJson): ChatMessageRow {
  return {
    ...message,
    id: Number(message.id),
    swipeId: message.swipeId === null ? null : Number(message.swipeId),
    createdAt: new Date(message.createdAt),
    editedAt: message.editedAt === null ? null : new Date(message.editedAt),
  }
}

/** The newest messages as `recentJson` reads them. */
function parseRecent(json: string) {
  return (JSON.parse(json) as [number | string, MessageAuthor, string, number][]).map(
    ([id, author, content, tokens]) => ({ id: Number(id), author, content, tokens }),
  )
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
    /** The character exists but its creator made it private: the chat is unavailable to this user. */
    roleWithheld: sql<boolean>`(${chatSessions.roleId} is not null and ${roles.id} is null)`,
  }

  // The queries between the user pressing send and the model being asked, prepared once: building
  // Drizzle's SQL costs more CPU than PostgreSQL spends running them (bench/chat-overhead.ts).
  function findSessionQueryFields() {
    return {
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
      // The paid plan the user holds now (the rule is entitlements'), read here to save the model
      // call one more query; null means the free plan. What the plan allows comes from entitlements.
      paidPlanId: heldPlanIdSql(sql`${chatSessions.userId}`),
    }
  }
  const findSessionQuery = db
    .select(findSessionQueryFields())
    .from(chatSessions)
    .innerJoin(users, eq(users.id, chatSessions.userId))
    .leftJoin(roles, visibleChatRole)
    .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('chat_find_session')
  // Everything a send reads, in one statement (one round trip, one plan on PGlite's single
  // connection): the session as above, the id of an earlier message with this request id (a repeat),
  // and the newest messages for the prompt as one JSON text ([id, author, content, tokens], newest
  // first), which both drivers hand over as a string instead of parsing a page of rows field by field.
  const recentJson = sql<string>`(
    select coalesce(json_agg(json_build_array(h.id, h.author, h.content, h.tokens) order by h.id desc), '[]')::text
    from (
      select ${chatMessages.id} as id, ${chatMessages.author} as author,
             ${chatMessages.content} as content, ${chatMessages.tokens} as tokens
      from ${chatMessages}
      where ${chatMessages.sessionId} = ${chatSessions.id}
      order by ${newestFirst}
      limit ${sql.placeholder('limit')}
    ) h)`
  const sendContextQuery = db
    .select({
      ...findSessionQueryFields(),
      earlierId: sql<number | null>`(
        select ${chatMessages.id} from ${chatMessages}
        where ${chatMessages.sessionId} = ${chatSessions.id}
          and ${chatMessages.requestId} = ${sql.placeholder('requestId')})`.mapWith((value: unknown) =>
        value === null ? null : Number(value),
      ),
      recent: recentJson,
    })
    .from(chatSessions)
    .innerJoin(users, eq(users.id, chatSessions.userId))
    .leftJoin(roles, visibleChatRole)
    .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('chat_send_context')
  // The usual send, a model that costs nothing, in one statement: the user's message is stored (in
  // a CTE) only when the session is the user's, its character exists and the model the turn will use
  // is not premium; the same statement reads the session and the newest messages (as they were
  // before the insert) and moves the session up the user's list.
  const effectiveModel = (modelId: SQL) =>
    sql`coalesce(
      ${sql.placeholder('chatModelId')}::text,
      case when ${sql.placeholder('offeredModelIds')}::jsonb ? ${modelId} then ${modelId}
           else ${sql.placeholder('defaultModelId')}::text end)`
  const sendFreeQuery = db
    .with(
      db.$with('ins', { id: chatMessages.id }).as(
        sql`insert into ${chatMessages} (session_id, author, content, tokens, request_id)
          select s.id, 'user', ${sql.placeholder('content')}::text, ${sql.placeholder('tokens')}::int,
                 ${sql.placeholder('requestId')}::text
          from ${chatSessions} s
          join ${roles} r on r.id = s.role_id and (r.visibility = 'public' or r.creator_id = s.user_id)
          where s.id = ${sql.placeholder('sessionId')}::uuid
            and s.user_id = ${sql.placeholder('userId')}::uuid
            and not (${sql.placeholder('premiumModelIds')}::jsonb ? ${effectiveModel(sql`s.model_id`)})
          on conflict do nothing
          returning *`,
      ),
      db.$with('touch', { id: chatSessions.id }).as(
        sql`update ${chatSessions}
          set last_message_preview = left(${sql.placeholder('content')}::text, ${PREVIEW_LENGTH}),
              updated_at = now(),
              model_id = ${effectiveModel(sql`${chatSessions.modelId}`)}
          where id = (select session_id from ins)
          returning id`,
      ),
    )
    .select({
      ...findSessionQueryFields(),
      recent: recentJson,
      inserted: sql<string | null>`(select ${messageJson(sql`ins`)}::text from ins)`,
    })
    .from(chatSessions)
    .innerJoin(users, eq(users.id, chatSessions.userId))
    .leftJoin(roles, visibleChatRole)
    .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), eq(chatSessions.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('chat_send_free')
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
      .where(and(eq(chatSessions.id, sql.placeholder('sessionId')), eq(chatSessions.userId, sql.placeholder('userId'))))
      .prepare(before ? 'chat_message_page_before' : 'chat_message_page')
  const messagePageQuery = messagePage(false)
  const messagePageBeforeQuery = messagePage(true)
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
      db.$with('touch', { id: chatSessions.id }).as(
        sql`update ${chatSessions}
          set last_message_preview = left(${sql.placeholder('content')}, ${PREVIEW_LENGTH}),
              updated_at = now(),
              model_id = ${sql.placeholder('modelId')}
          where id = ${sql.placeholder('sessionId')}
          returning id`,
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

  // A new reply that spends nothing, in one statement instead of a transaction of six round trips:
  // both ids are drawn first, so the message is inserted already pointing at its one alternative
  // (foreign keys are checked at the end of the statement), and the session's preview rides along.
  const ph = (name: keyof ReplyToStore) => sql.placeholder(name)
  const storeNewReplyQuery = db
    .with(
      db.$with('ids', { id: chatMessages.id }).as(
        sql`select nextval(pg_get_serial_sequence('chat_messages', 'id')) as message_id,
          nextval(pg_get_serial_sequence('chat_swipes', 'id')) as swipe_id`,
      ),
      db.$with('swipe', { id: chatSwipes.id }).as(
        sql`insert into ${chatSwipes}
            (id, message_id, content, tokens, status, model_id, diamonds_spent, request_id)
          overriding system value
          select swipe_id, message_id, ${ph('content')}::text, ${ph('tokens')}::int, ${ph('status')}::text,
                 ${ph('modelId')}::text, ${ph('diamondsSpent')}::int, ${ph('requestId')}::text
          from ids
          returning id`,
      ),
      db.$with('touch', { id: chatSessions.id }).as(
        sql`update ${chatSessions}
          set last_message_preview = left(${ph('content')}::text, ${PREVIEW_LENGTH}),
              updated_at = now(),
              model_id = ${ph('modelId')}::text
          where id = ${ph('sessionId')}::uuid
          returning id`,
      ),
    )
    .insert(chatMessages)
    .overridingSystemValue()
    .values({
      id: sql`(select message_id from ids)`,
      sessionId: ph('sessionId'),
      author: 'assistant',
      content: ph('content'),
      tokens: ph('tokens'),
      status: ph('status'),
      modelId: ph('modelId'),
      diamondsSpent: ph('diamondsSpent'),
      swipeId: sql`(select swipe_id from ids)`,
      swipeIndex: 0,
      swipeCount: 1,
    })
    .returning()
    .prepare('chat_store_new_reply')

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

    /**
     * What a send needs before it asks the model, in one round trip: the session (null when it is
     * not `userId`'s), the id of the message an earlier call with `requestId` stored, and the newest
     * `limit` messages, newest first.
     */
    async sendContext(sessionId: string, userId: string, requestId: string | null, limit: number) {
      const [row] = await sendContextQuery.execute({ sessionId, userId, requestId, limit })
      if (!row) return null
      const { earlierId, recent, ...session } = row
      return { session: session satisfies SessionView, earlierId, recent: parseRecent(recent) }
    },

    /**
     * A send to a model that costs nothing, in one round trip: stores the user's message when the
     * session is `userId`'s, its character still exists (and is public or theirs) and the model the turn uses (`chatModelId`,
     * else the session's model while it is offered, else `defaultModelId`) is not premium, and reads
     * what the turn needs (as `sendContext`). Null when nothing was stored: the session is not the
     * user's or cannot take the message this way, or `requestId` was used already (a repeat).
     */
    async sendFree(input: {
      sessionId: string
      userId: string
      content: string
      tokens: number
      requestId: string | null
      chatModelId: string | null
      offeredModelIds: readonly string[]
      defaultModelId: string
      premiumModelIds: readonly string[]
      limit: number
    }) {
      const [row] = await sendFreeQuery.execute({
        ...input,
        offeredModelIds: JSON.stringify(input.offeredModelIds),
        premiumModelIds: JSON.stringify(input.premiumModelIds),
      })
      if (!row?.inserted) return null
      const { recent, inserted, ...session } = row
      const userMessage = messageFromJson(JSON.parse(inserted) as MessageJson)
      return { session: session satisfies SessionView, recent: parseRecent(recent), userMessage }
    },

    /** One page of the user's sessions, most recently active first. */
    async listSessions(userId: string, offset: number, limit: number) {
      return db
        .select(sessionColumns)
        .from(chatSessions)
        .leftJoin(roles, visibleChatRole)
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
      if (reply.messageId === null && !withinTransaction) {
        const [row] = await storeNewReplyQuery.execute(reply)
        if (!row) throw new Error('reply was not stored')
        return row
      }
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
