import { z } from 'zod'
import { tagSchema } from './catalogue-schemas.ts'
import { REPORT_OUTCOMES, REPORT_REASONS } from './characters.ts'
import { LOCALES } from './locales.ts'

/**
 * The moderation console's calls (`/api/admin/moderation/...`, ADR 058): the reports queue, one
 * reported character, handling its reports, and the direct character actions. Moderators do all
 * content actions; suspending a creator's account is an admin's, with a fresh confirmation.
 */

/** How a moderator closes a character's open reports (suspending the creator has its own route). */
export const REPORT_HANDLINGS = ['dismiss', 'hide', 'mark_adult', 'warn'] as const
export type ReportHandling = (typeof REPORT_HANDLINGS)[number]

/** What a moderator does to a character directly, with or without reports. */
export const CHARACTER_ACTIONS = ['hide', 'restore', 'mark_adult', 'unmark_adult'] as const
export type CharacterAction = (typeof CHARACTER_ACTIONS)[number]

/** Why a character is hidden (ADR 055): a moderator hid it, or its creator is suspended. */
export const HIDE_CAUSES = ['moderation', 'suspension'] as const

export const NOTE_MAX_LENGTH = 2000
const note = z.string().trim().min(1).max(NOTE_MAX_LENGTH)

export const reportsQueueQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(25),
})

export const characterIdParams = z.object({ characterId: z.string().trim().min(1).max(40) })
/** The console's locale: the tag names' language. The texts are the character's own. */
export const characterQuery = z.object({ locale: z.enum(LOCALES).optional() })

export const handleReportsBody = z.object({ action: z.enum(REPORT_HANDLINGS), note })
export const suspendCreatorBody = z.object({ note })
export const characterActionBody = z.object({ action: z.enum(CHARACTER_ACTIONS), note })

const creatorSchema = z.object({ id: z.string(), username: z.string() }).nullable()

export const queueItemSchema = z.object({
  character: z.object({
    id: z.string(),
    name: z.string(),
    avatarUrl: z.string().nullable(),
    isAdult: z.boolean(),
    visibility: z.enum(['public', 'private']),
    /** Hidden by an operator (for any cause). */
    hidden: z.boolean(),
    /** Null: the creator's account is gone. */
    creator: creatorSchema,
  }),
  /** Open reports, and the people behind them (each anonymous report counts as one). */
  reports: z.number().int(),
  reporters: z.number().int(),
  reasons: z.array(z.object({ reason: z.enum(REPORT_REASONS), count: z.number().int() })),
  firstReportedAt: z.string(),
  lastReportedAt: z.string(),
})

export const queuePageSchema = z.object({
  items: z.array(queueItemSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Characters with open reports, in all pages. */
  total: z.number().int(),
  hasMore: z.boolean(),
})

export const reportedCharacterSchema = z.object({
  character: z.object({
    id: z.string(),
    name: z.string(),
    introduction: z.string(),
    /** The first greeting, as the chat opens with it. */
    greeting: z.string(),
    avatarUrl: z.string().nullable(),
    tags: z.array(tagSchema),
    isAdult: z.boolean(),
    visibility: z.enum(['public', 'private']),
    hiddenCauses: z.array(z.enum(HIDE_CAUSES)),
    creator: creatorSchema,
    /** The language its texts are written in (they are shown in it, never translated here). */
    language: z.enum(LOCALES),
    createdAt: z.string(),
  }),
  /** Open reports, oldest first. A reporter is only an account id (null: not signed in). */
  openReports: z.array(
    z.object({
      id: z.number().int(),
      reason: z.enum(REPORT_REASONS),
      text: z.string(),
      reporterId: z.string().nullable(),
      reportedAt: z.string(),
    }),
  ),
  /** Reports already handled, newest first (up to 50), with how each ended. */
  closedReports: z.array(
    z.object({
      id: z.number().int(),
      reason: z.enum(REPORT_REASONS),
      outcome: z.enum(REPORT_OUTCOMES).nullable(),
      reportedAt: z.string(),
      handledAt: z.string().nullable(),
    }),
  ),
})

export const handledSchema = z.object({ closed: z.number().int() })
export const changedSchema = z.object({ changed: z.boolean() })

export type QueueItem = z.infer<typeof queueItemSchema>
export type QueuePage = z.infer<typeof queuePageSchema>
export type ReportedCharacter = z.infer<typeof reportedCharacterSchema>
