import { type SQL, sql } from 'drizzle-orm'
import { bigint, index, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { chatMessages, chatSessions } from './chat.ts'
import { tsvector } from './types.ts'

/**
 * The words of each chat message as search compares them (ADR 048). A trigger adds a row for every
 * new message and empties `words` when the message's text changes (an edit, another swipe chosen),
 * so no write path of the chat has to know; chat search splits the waiting ones into words
 * (contracts/search-words.ts, Intl.Segmenter: CJK and Thai included) before it looks.
 */
export const chatMessageSearch = pgTable(
  'chat_message_search',
  {
    messageId: bigint('message_id', { mode: 'number' })
      .primaryKey()
      .references(() => chatMessages.id, { onDelete: 'cascade' }),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    /** Null: still to be split into words. */
    words: text('words'),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs((): SQL => sql`to_tsvector('simple', coalesce(${chatMessageSearch.words}, ''))`),
  },
  (table) => [
    index('chat_message_search_idx').using('gin', table.search),
    index('chat_message_search_session_idx').on(table.sessionId),
    index('chat_message_search_waiting_idx').on(table.sessionId).where(sql`${table.words} is null`),
  ],
)
