import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import type { MessageAuthor, MessageStatus, SummaryFailureCode } from '#contracts/chat.ts'
import type { SceneMode } from '#contracts/chat-scenes.ts'
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
    /**
     * A branch (ADR 050): the chat it was branched from and the message it copies the history up
     * to. Null for a chat started afresh, and once that chat or message is deleted (the branch keeps
     * its own copy of the history).
     */
    parentSessionId: uuid('parent_session_id').references((): AnyPgColumn => chatSessions.id, {
      onDelete: 'set null',
    }),
    parentMessageId: bigint('parent_message_id', { mode: 'number' }).references((): AnyPgColumn => chatMessages.id, {
      onDelete: 'set null',
    }),
    /** The user's name for the chat (ADR 048); null: the character's name. */
    title: text('title'),
    /**
     * The author's note (ADR 053): a standing instruction inserted into every prompt of the chat,
     * `author_note_depth` messages before the end (0: after the last). '' : none.
     */
    authorNote: text('author_note').notNull().default(''),
    authorNoteDepth: integer('author_note_depth').notNull().default(4),
    /** Who speaks next in a scene (ADR 052): `manual`, `turns` or `natural`. A chat of one character ignores it. */
    sceneMode: text('scene_mode').$type<SceneMode>().notNull().default('natural'),
    /** Pinned on top of My Chats since then (ADR 048); null: not pinned. */
    pinnedAt: timestamp('pinned_at', { withTimezone: true }),
    /**
     * Deleted by its user at this moment (ADR 048): hidden everywhere at once, restorable for
     * CHAT_UNDO_WINDOW_MS, then removed for good by the `chat-purge` job.
     */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('chat_sessions_user_recent_idx').on(table.userId, table.updatedAt.desc(), table.id.desc()),
    // Deleting a character sets its sessions' role to null: without this it would scan them all.
    index('chat_sessions_role_idx').on(table.roleId),
    // A chat's branches; both also serve the set null when a chat or a message is deleted, which
    // would otherwise scan every session for each message deleted.
    index('chat_sessions_parent_idx').on(table.parentSessionId).where(sql`${table.parentSessionId} is not null`),
    index('chat_sessions_parent_message_idx')
      .on(table.parentMessageId)
      .where(sql`${table.parentMessageId} is not null`),
    check('chat_sessions_temperature', sql`${table.temperature} between 0 and 2`),
    check('chat_sessions_reply_tokens', sql`${table.replyTokens} > 0`),
    check('chat_sessions_author_note_depth', sql`${table.authorNoteDepth} between 0 and 100`),
    check('chat_sessions_author_note_length', sql`char_length(${table.authorNote}) <= 2000`),
    check('chat_sessions_scene_mode', sql`${table.sceneMode} in ('manual', 'turns', 'natural')`),
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
    /**
     * The character who wrote this reply (ADR 052), the same for all its alternatives (a regenerate
     * keeps the speaker); null for the user's messages, and for replies of a chat that was never a
     * scene (its one character spoke them). Null once that character is deleted.
     */
    speakerRoleId: bigint('speaker_role_id', { mode: 'number' }).references(() => roles.id, { onDelete: 'set null' }),
    /** Brought in from a chat file (ADR 051): written elsewhere, cost nothing; `created_at` is the file's date. */
    imported: boolean('imported').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    editedAt: timestamp('edited_at', { withTimezone: true }),
  },
  (table) => [
    // Pages of a conversation, newest first, keyset on the id; also the prompt's recent messages.
    index('chat_messages_session_idx').on(table.sessionId, table.id.desc()),
    // Deleting a character sets the speaker of its scene replies to null: without this it would scan every message.
    index('chat_messages_speaker_idx').on(table.speakerRoleId).where(sql`${table.speakerRoleId} is not null`),
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

/**
 * The characters of a scene (ADR 052), in speaking order. A chat with no rows here is a scene of
 * one: its `chat_sessions.role_id`. The first rows are written when a second character joins, the
 * session's own character at position 0; `chat_sessions.role_id` stays the first member.
 */
export const chatMembers = pgTable(
  'chat_members',
  {
    sessionId: uuid('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.sessionId, table.roleId] }),
    // Deleting a character removes it from every scene: without this it would scan them all.
    index('chat_members_role_idx').on(table.roleId),
  ],
)

export type ChatSessionRow = typeof chatSessions.$inferSelect
export type ChatMessageRow = typeof chatMessages.$inferSelect
export type ChatSwipeRow = typeof chatSwipes.$inferSelect
