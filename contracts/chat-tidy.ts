import { z } from 'zod'
import { chatRoleSchema, chatSessionSummarySchema, sessionIdSchema } from './chat-schemas.ts'
import { LOCALES } from './locales.ts'

// Find and tidy one's chats (issue 22 item 7, ADR 048): search, rename, pin, delete with undo; and a
// character's chats for its page (item 1). Constants and the zod schemas of their calls.

/** A deleted chat can be restored this long; then the `chat-purge` job removes it for good. */
export const CHAT_UNDO_WINDOW_MS = 10_000
/** The longest chat title, in characters. */
export const CHAT_TITLE_MAX_LENGTH = 100
/** Search words taken from what the user typed (the rest are ignored). */
export const CHAT_SEARCH_MAX_WORDS = 8
export const CHAT_SEARCH_PAGE_SIZE_MAX = 50
/** Characters of a message around the first match shown as a search result's snippet. */
export const CHAT_SEARCH_SNIPPET_LENGTH = 160
/** Renames, pins, deletes and restores per user: a person tidying does a few a minute. */
export const CHAT_TIDY_LIMIT = { max: 60, windowMs: 60_000 } as const
/** Searches per user. */
export const CHAT_SEARCH_LIMIT = { max: 30, windowMs: 60_000 } as const

export const renameSessionBody = z.object({
  sessionId: sessionIdSchema,
  /** Blank: back to the character's name. */
  title: z.string().max(CHAT_TITLE_MAX_LENGTH * 4),
})
export const pinSessionBody = z.object({ sessionId: sessionIdSchema, pinned: z.boolean() })
export const restoreSessionBody = z.object({ sessionId: sessionIdSchema })
export const characterSessionsBody = z.object({
  roleId: z.string().min(1).max(100),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(50).default(20),
  locale: z.enum(LOCALES).optional(),
})
export const searchChatsBody = z.object({
  q: z.string().max(500),
  page: z.coerce.number().int().min(1).max(1000).default(1),
  pageSize: z.coerce.number().int().min(1).max(CHAT_SEARCH_PAGE_SIZE_MAX).default(20),
  /** The interface's language: what the user typed is split into words in it, characters named in it. */
  locale: z.enum(LOCALES).optional(),
})

export const tidiedSessionSchema = z.object({ id: z.string(), title: z.string().nullable(), pinned: z.boolean() })
export const deletedSessionSchema = z.object({
  deleted: z.literal(true),
  /** Until when `/chat/session/restore` brings it back (ISO time). */
  restorableUntil: z.string(),
})

export const characterSessionsSchema = z.object({
  sessions: z.array(chatSessionSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

export const chatSearchHitSchema = z.object({
  sessionId: z.string(),
  /** The chat's own name, or null (then the character's). */
  title: z.string().nullable(),
  role: chatRoleSchema.nullable(),
  messageId: z.number().int(),
  author: z.enum(['user', 'assistant']),
  /** Part of the message around the first match, with `…` where it was cut. */
  snippet: z.string(),
  /** Where the query's words are in `snippet`: [start, end) in UTF-16 units. */
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
  createdAt: z.string(),
})
export const chatSearchSchema = z.object({
  hits: z.array(chatSearchHitSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

export type ChatSearchHit = z.infer<typeof chatSearchHitSchema>
export type ChatSearchResult = z.infer<typeof chatSearchSchema>
export type CharacterSessions = z.infer<typeof characterSessionsSchema>
