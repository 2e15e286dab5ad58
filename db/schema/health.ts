import { bigint, date, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core'

/**
 * What the reply path knows and no other table keeps (ADR 057): per UTC day and model, how many
 * replies ended each way (`ok`, `stopped` by the user, or the model error's kind) and how long
 * their first token took, as a fixed histogram (`ttft_bucket` indexes TTFT_BUCKETS_MS; -1: no token
 * came). One upsert per reply adds 1 to one row, so a day's percentile is read from the buckets.
 */
export const modelDailyStats = pgTable(
  'model_daily_stats',
  {
    day: date('day', { mode: 'string' }).notNull(),
    modelId: text('model_id').notNull(),
    outcome: text('outcome').notNull(),
    ttftBucket: smallint('ttft_bucket').notNull(),
    replies: integer('replies').notNull().default(0),
    /** The sum of the first-token times of these replies, in ms (the day's mean). */
    ttftMsTotal: bigint('ttft_ms_total', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.modelId, table.outcome, table.ttftBucket] })],
)
