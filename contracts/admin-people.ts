import { z } from 'zod'
import { REPORT_OUTCOMES, REPORT_REASONS, VISIBILITIES } from './characters.ts'

/**
 * The people side of the operator console (ADR 060): admin only (moderators
 * handle content, never accounts). Every action takes a required note, kept in the audit log.
 */

/** The most one action may grant or deduct (the service's own limit). */
export const MAX_DIAMOND_ADJUSTMENT = 1_000_000

/**
 * The ledger's reasons the console words (diamonds, payments and the console write them); any other
 * is shown as stored.
 */
export const LEDGER_REASONS = [
  'signup',
  'monthly',
  'chat',
  'hold',
  'settle',
  'refund',
  'order-refund',
  'admin_grant',
  'admin_deduct',
] as const
export type LedgerReason = (typeof LEDGER_REASONS)[number]
export const isLedgerReason = (reason: string): reason is LedgerReason =>
  (LEDGER_REASONS as readonly string[]).includes(reason)

export const HIDE_CAUSES = ['moderation', 'suspension'] as const
export const REPORT_STATUSES = ['open', 'resolved', 'dismissed'] as const

export const peopleQuery = z.object({
  /** An id, an e-mail (exact or its beginning) or the beginning of a username. */
  q: z.string().trim().min(1).max(320),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(50),
})
export const personParams = z.object({ userId: z.uuid() })

const note = z.string().trim().min(1).max(2000)
export const noteBody = z.object({ note })
export const diamondsBody = z.object({
  /** Positive grants, negative deducts; never zero. */
  amount: z
    .number()
    .int()
    .min(-MAX_DIAMOND_ADJUSTMENT)
    .max(MAX_DIAMOND_ADJUSTMENT)
    .refine((n) => n !== 0, 'not zero'),
  note,
})

export const personSummarySchema = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  emailVerifiedAt: z.string().nullable(),
  locale: z.string(),
  hasPassword: z.boolean(),
  googleLinked: z.boolean(),
  createdAt: z.string(),
  suspended: z.boolean(),
})
export const peoplePageSchema = z.object({
  items: z.array(personSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  hasMore: z.boolean(),
})

export const personDetailSchema = z.object({
  account: personSummarySchema.omit({ suspended: true }),
  /** Null when not suspended; `by` the suspending operator (null, `byName` '' once their account is gone). */
  suspended: z.object({ note: z.string(), by: z.string().nullable(), byName: z.string(), at: z.string() }).nullable(),
  /** The plan in force (a period not yet ended); null: the free plan. */
  plan: z.object({ planId: z.string(), status: z.string(), currentPeriodEnd: z.string() }).nullable(),
  balance: z.number().int(),
  /** The newest ledger entries first (at most 50). */
  ledger: z.array(
    z.object({ amount: z.number().int(), reason: z.string(), reference: z.string(), createdAt: z.string() }),
  ),
  characters: z.array(
    z.object({
      publicId: z.string(),
      name: z.string(),
      visibility: z.enum(VISIBILITIES),
      isAdult: z.boolean(),
      chatCount: z.number().int(),
      hiddenBy: z.array(z.enum(HIDE_CAUSES)),
      createdAt: z.string(),
    }),
  ),
  reportsMade: z.array(
    z.object({
      id: z.number().int(),
      characterId: z.string(),
      characterName: z.string(),
      reason: z.enum(REPORT_REASONS),
      status: z.enum(REPORT_STATUSES),
      outcome: z.enum(REPORT_OUTCOMES).nullable(),
      createdAt: z.string(),
      handledAt: z.string().nullable(),
    }),
  ),
  reportsReceived: z.array(
    z.object({
      id: z.number().int(),
      characterId: z.string(),
      reason: z.enum(REPORT_REASONS),
      text: z.string(),
      status: z.enum(REPORT_STATUSES),
      outcome: z.enum(REPORT_OUTCOMES).nullable(),
      createdAt: z.string(),
    }),
  ),
  warnings: z.array(z.object({ note: z.string(), createdAt: z.string() })),
})

export const changedSchema = z.object({ changed: z.boolean() })
export const sentSchema = z.object({ sent: z.boolean() })
export const balanceSchema = z.object({ balance: z.number().int() })
export const deletedSchema = z.object({ deleted: z.literal(true) })

export type PersonSummary = z.infer<typeof personSummarySchema>
export type PeoplePage = z.infer<typeof peoplePageSchema>
export type PersonDetail = z.infer<typeof personDetailSchema>
