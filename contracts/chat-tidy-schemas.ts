import { z } from 'zod'
import { chatRoleSchema, chatSessionSummarySchema, sessionIdSchema } from './chat-schemas.ts'
import { CHAT_SEARCH_PAGE_SIZE_MAX, CHAT_TITLE_MAX_LENGTH } from './chat-tidy.ts'
import { LOCALES } from './locales.ts'

// The schemas of the calls that find and tidy one's chats (ADR 048); their constants are in
// chat-tidy.ts, which imports no zod.

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
