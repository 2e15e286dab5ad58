import { bigint, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import type { ReportOutcome, ReportReason } from '#contracts/characters.ts'
import { roles } from './roles.ts'
import { users } from './users.ts'

/**
 * Reports of characters, for an operator to review in the reports queue (server/modules/moderation). The reporter is
 * kept when signed in; anonymous reports are allowed and rate limited by address.
 */
export const roleReports = pgTable(
  'role_reports',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    reporterId: uuid('reporter_id').references(() => users.id, { onDelete: 'set null' }),
    reason: text('reason').$type<ReportReason>().notNull(),
    text: text('text').notNull().default(''),
    /** `open` until an operator handles it. */
    status: text('status').$type<'open' | 'resolved' | 'dismissed'>().notNull().default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when an operator closes it, with their note (not shown to the reporter). */
    outcome: text('outcome').$type<ReportOutcome>(),
    outcomeNote: text('outcome_note'),
    handledBy: uuid('handled_by').references(() => users.id, { onDelete: 'set null' }),
    handledAt: timestamp('handled_at', { withTimezone: true }),
  },
  (table) => [
    index('role_reports_open_idx').on(table.status, table.createdAt),
    index('role_reports_role_idx').on(table.roleId),
  ],
)

export type RoleReportRow = typeof roleReports.$inferSelect
