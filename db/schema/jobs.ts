import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

/**
 * Background work that must survive a crash (ADR 017): mails, memory summaries, the monthly award.
 * A job is written (often in the transaction that causes it), claimed by one worker for a lease,
 * deleted when done, retried with a growing delay when it fails, and kept with `failed_at` when it
 * has failed too often, for an operator to look at. A worker that dies leaves its lease to expire,
 * and the job runs again elsewhere: handlers are written to be safe to run twice.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull().default({}),
    /** At most one unfinished job per key (a session's summary, an hour's award). */
    key: text('key'),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    /** How long a claim lasts before another worker may take the job over. */
    leaseMs: integer('lease_ms').notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lastError: text('last_error'),
    failedAt: timestamp('failed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('jobs_due_idx').on(table.runAt, table.id).where(sql`${table.failedAt} IS NULL`),
    uniqueIndex('jobs_key_key').on(table.key).where(sql`${table.failedAt} IS NULL`),
  ],
)
