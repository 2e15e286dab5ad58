import { sql } from 'drizzle-orm'
import {
  bigint,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import type { MessageAuthor, MessageStatus, SummaryFailureCode } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import { roles } from './roles.ts'
import { users } from './users.ts'

/**
 * One conversation of a user with a character (ADR 009). The preview of the newest message is kept
 * here by the repo, so "my chats" is one index scan without touching messages.
 */
export const chatSessions = pgTable(
  'chat_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Null once the character is deleted: the chat stays readable as 'Unknown Role'. */
    roleId: bigint('role_id', { mode: 'number' }).references(() => roles.id, { onDelete: 'set null' }),
    /** The model of the latest reply. */
    modelId: text('model_id'),
    /** The running summary of what fell out of the context window; the user may edit it. */
    memoryNote: text('memory_note').notNull().default(''),
    /** Messages with an id up to this one are summarised in the note. */
    memoryThroughId: bigint('memory_through_id', { mode: 'number' }),
    /** Bumped by every write of the note, so a summary made from an older note never overwrites a newer one. */
    memoryVersion: integer('memory_version').notNull().default(0),
    memoryUpdatedAt: timestamp('memory_updated_at', { withTimezone: true }),
    /** Memory summaries that failed in a row (ADR 034); 0 after one succeeds. */
    summaryFailures: integer('summary_failures').notNull().default(0),
    summaryFailedAt: timestamp('summary_failed_at', { withTimezone: true }),
    /** Why the last one failed (contracts/chat.ts SUMMARY_FAILURE_CODES). */
    summaryFailureCode: text('summary_failure_code').$type<SummaryFailureCode>(),
    lastMessagePreview: text('last_message_preview'),
    /**
     * The user's choices for this chat (ADR 033); null: the model's default. Clamped to the bounds
     * of the model in use at each generation, so a narrowed bound never needs a rewrite here.
     */
    temperature: doublePrecision('temperature'),
    replyTokens: integer('reply_tokens'),
    /** The language the model writes in for this chat (a locale of contracts/locales.ts); null: the site's language at each request (ADR 038). */
    language: text('language').$type<Locale>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('chat_sessions_user_recent_idx').on(table.userId, table.updatedAt.desc(), table.id.desc()),
    // Deleting a character sets its sessions' role to null: without this it would scan them all.
    index('chat_sessions_role_idx').on(table.roleId),
    check('chat_sessions_temperature', sql`${table.temperature} between 0 and 2`),
    check('chat_sessions_reply_tokens', sql`${table.replyTokens} > 0`),
  ],
)

/**
 * Every message of a conversation. For a reply, `content`, `tokens`, `status`, `model_id` and
 * `diamonds_spent` are those of its selected alternative (`swipe_id`, at `swipe_index` of
 * `swipe_count`), copied by the repo in the same transaction that selects it, so reading a
 * conversation or building a prompt never joins. User messages have no alternatives (count 0).
 */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    author: text('author').$type<MessageAuthor>().notNull(),
    content: text('content').notNull(),
    /** o200k tokens of `content`, counted once at write so the context window is a sum. */
    tokens: integer('tokens').notNull(),
    status: text('status').$type<MessageStatus>().notNull().default('complete'),
    modelId: text('model_id'),
    diamondsSpent: integer('diamonds_spent').notNull().default(0),
    swipeId: bigint('swipe_id', { mode: 'number' }),
    swipeIndex: integer('swipe_index').notNull().default(0),
    swipeCount: integer('swipe_count').notNull().default(0),
    /** The client's request id of the call that sent this user message (repeats are recognised). */
    requestId: text('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    editedAt: timestamp('edited_at', { withTimezone: true }),
  },
  (table) => [
    // Pages of a conversation, newest first, keyset on the id; also the prompt's recent messages.
    index('chat_messages_session_idx').on(table.sessionId, table.id.desc()),
    uniqueIndex('chat_messages_request_key')
      .on(table.sessionId, table.requestId)
      .where(sql`${table.requestId} is not null`),
    check('chat_messages_author', sql`${table.author} in ('user', 'assistant')`),
    check('chat_messages_status', sql`${table.status} in ('complete', 'interrupted', 'cut')`),
  ],
)

/**
 * The alternatives of a reply (swipes), every one kept: the greeting and the character's alternate
 * greetings, and each generation of a reply. A generation's id is what its diamonds are spent under
 * (`chat:<id>` in the ledger), so a reply is paid at most once.
 */
export const chatSwipes = pgTable(
  'chat_swipes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    messageId: bigint('message_id', { mode: 'number' })
      .notNull()
      .references(() => chatMessages.id, { onDelete: 'cascade' }),
    content: text('content').notNull(),
    tokens: integer('tokens').notNull(),
    status: text('status').$type<MessageStatus>().notNull(),
    modelId: text('model_id'),
    diamondsSpent: integer('diamonds_spent').notNull().default(0),
    /** The client's request id of the call that generated it. */
    requestId: text('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('chat_swipes_message_idx').on(table.messageId, table.id),
    uniqueIndex('chat_swipes_request_key')
      .on(table.messageId, table.requestId)
      .where(sql`${table.requestId} is not null`),
    check('chat_swipes_status', sql`${table.status} in ('complete', 'interrupted', 'cut')`),
  ],
)

export type ChatSessionRow = typeof chatSessions.$inferSelect
export type ChatMessageRow = typeof chatMessages.$inferSelect
export type ChatSwipeRow = typeof chatSwipes.$inferSelect
