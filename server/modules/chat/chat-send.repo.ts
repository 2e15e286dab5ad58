import { and, eq, getTableColumns, lt, type SQL, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { type ChatMessageRow, chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { balanceSql } from '#server/modules/diamonds/diamonds.repo.ts'
import type { SessionView, Tx } from './chat.repo.ts'
import {
  findSessionQueryFields,
  liveSession,
  type MessageJson,
  messageFromJson,
  messageJson,
  newestFirst,
  PREVIEW_LENGTH,
  parseRecent,
  type ReplyToStore,
  recentJson,
  touchSession,
  visibleChatRole,
} from './chat-rows.repo.ts'

/**
 * The statements of the send path (turn-pipeline.ts), prepared once at start: read the turn's
 * context, store the user's message, store the reply (with its price, in one transaction).
 */
export function createChatSendRepo(db: Db) {
  // The queries between the user pressing send and the model being asked, prepared once: building
  // Drizzle's SQL costs more CPU than PostgreSQL spends running them (bench/chat-overhead.ts).
  const findSessionQuery = db
    .select(findSessionQueryFields())
    .from(chatSessions)
    .innerJoin(users, eq(users.id, chatSessions.userId))
    .leftJoin(roles, visibleChatRole)
    .where(
      and(
        eq(chatSessions.id, sql.placeholder('sessionId')),
        eq(chatSessions.userId, sql.placeholder('userId')),
        liveSession,
      ),
    )
    .limit(1)
    .prepare('chat_find_session')
  // Everything a send reads, in one statement (one round trip, one plan on PGlite's single
  // connection): the session as above, the id of an earlier message with this request id (a repeat),
  // and the newest messages for the prompt as one JSON text ([id, author, content, tokens], newest
  // first), which both drivers hand over as a string instead of parsing a page of rows field by field.
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
    .where(
      and(
        eq(chatSessions.id, sql.placeholder('sessionId')),
        eq(chatSessions.userId, sql.placeholder('userId')),
        liveSession,
      ),
    )
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
            and s.deleted_at is null
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
    .where(
      and(
        eq(chatSessions.id, sql.placeholder('sessionId')),
        eq(chatSessions.userId, sql.placeholder('userId')),
        liveSession,
      ),
    )
    .limit(1)
    .prepare('chat_send_free')
  // A page of messages for the reader, the owner check and the count in one round trip.
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
      speakerRoleId: sql`${ph('speakerRoleId')}::bigint`,
      swipeId: sql`(select swipe_id from ids)`,
      swipeIndex: 0,
      swipeCount: 1,
    })
    .returning({
      ...getTableColumns(chatMessages),
      // The chat's user's balance, for the reply's `done` event: no statement of its own.
      balance: balanceSql(sql`(select s.user_id from ${chatSessions} s where s.id = ${ph('sessionId')}::uuid)`),
    })
    .prepare('chat_store_new_reply')

  return {
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

    /** Messages newest first, older than `before` when given (keyset on the id). */
    async recentMessages(sessionId: string, options: { before?: number | undefined; limit: number }) {
      return options.before === undefined
        ? recentQuery.execute({ sessionId, limit: options.limit })
        : recentBeforeQuery.execute({ sessionId, before: options.before, limit: options.limit })
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
     * new alternative): if that throws, nothing is stored. `balance`: the user's diamonds after it,
     * when the statement read them (a new reply that spends nothing), else undefined.
     */
    async storeReply(
      reply: ReplyToStore,
      withinTransaction?: (tx: Tx, swipeId: number) => Promise<unknown>,
    ): Promise<{ message: ChatMessageRow; balance?: number | undefined }> {
      if (reply.messageId === null && !withinTransaction) {
        const [row] = await storeNewReplyQuery.execute({ ...reply, speakerRoleId: reply.speakerRoleId ?? null })
        if (!row) throw new Error('reply was not stored')
        const { balance, ...message } = row
        return { message, balance }
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
            .values({
              sessionId: reply.sessionId,
              author: 'assistant',
              speakerRoleId: reply.speakerRoleId ?? null,
              ...fields,
            })
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
        return { message }
      })
    },
  }
}
