import { sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { modelDailyStats } from '#db/schema/health.ts'
import { orders } from '#db/schema/payments.ts'
import { users } from '#db/schema/users.ts'
import type { ReplyOutcome } from '#server/modules/chat/generation.ts'

/**
 * The first-token histogram's upper bounds in ms (ADR 057): a reply whose first token took t ms
 * counts in the first bucket with t <= bound, or in the last one (index TTFT_BUCKETS_MS.length)
 * above them all. Fixed, so a day's buckets add up across models and instances.
 */
export const TTFT_BUCKETS_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000] as const

export function ttftBucketOf(ms: number): number {
  const index = TTFT_BUCKETS_MS.findIndex((bound) => ms <= bound)
  return index === -1 ? TTFT_BUCKETS_MS.length : index
}

/** Replies of one day, model, outcome and first-token bucket: how many, and their first-token times added up. */
export type ReplyStat = {
  day: string
  modelId: string
  outcome: ReplyOutcome
  ttftBucket: number
  replies: number
  ttftMsTotal: number
}

/** A reply's key and counts: its first token's bucket, or -1 when none came. */
export function replyStatOf(day: string, modelId: string, outcome: ReplyOutcome, ttftMs: number | null): ReplyStat {
  return {
    day,
    modelId,
    outcome,
    ttftBucket: ttftMs === null ? -1 : ttftBucketOf(ttftMs),
    replies: 1,
    ttftMsTotal: ttftMs === null ? 0 : Math.round(ttftMs),
  }
}

const statRow = (s: ReplyStat) => ({
  day: s.day,
  modelId: s.modelId,
  outcome: s.outcome,
  ttftBucket: s.ttftBucket,
  replies: s.replies,
  ttftMsTotal: s.ttftMsTotal,
})

/** One row of `model_daily_stats`. */
export type StatRow = {
  day: string
  modelId: string
  outcome: string
  ttftBucket: number
  replies: number
  ttftMsTotal: number
}

/** The rows of one statement, whichever driver answered. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}

export function createHealthStatsRepo(db: Db) {
  return {
    /**
     * Adds replies to their day, model, outcome and bucket, in one statement: rows with the same
     * key are added up (console-health.ts gathers the replies of a second into one call).
     */
    async record(stats: readonly ReplyStat[]) {
      if (stats.length === 0) return
      await db
        .insert(modelDailyStats)
        .values(stats.map(statRow))
        .onConflictDoUpdate({
          target: [modelDailyStats.day, modelDailyStats.modelId, modelDailyStats.outcome, modelDailyStats.ttftBucket],
          set: {
            replies: sql`${modelDailyStats.replies} + excluded.replies`,
            ttftMsTotal: sql`${modelDailyStats.ttftMsTotal} + excluded.ttft_ms_total`,
          },
        })
    },

    /** The reply statistics of the days from `since` (a UTC date, YYYY-MM-DD) on. */
    async replyStats(since: string): Promise<StatRow[]> {
      const rows = await db
        .select({
          day: sql<string>`${modelDailyStats.day}::text`,
          modelId: modelDailyStats.modelId,
          outcome: modelDailyStats.outcome,
          ttftBucket: modelDailyStats.ttftBucket,
          replies: modelDailyStats.replies,
          ttftMsTotal: modelDailyStats.ttftMsTotal,
        })
        .from(modelDailyStats)
        .where(sql`${modelDailyStats.day} >= ${since}::date`)
      return rows.map((r) => ({ ...r, replies: Number(r.replies), ttftMsTotal: Number(r.ttftMsTotal) }))
    },

    /** Accounts made per UTC day from `since` (an ISO instant, a day's start). */
    async signUps(since: string): Promise<{ day: string; count: number }[]> {
      const result = await db.execute(sql`
        SELECT (${users.createdAt} AT TIME ZONE 'UTC')::date::text AS day, count(*)::int AS count
          FROM ${users} WHERE ${users.createdAt} >= ${since}::timestamptz GROUP BY 1`)
      return rowsOf<{ day: string; count: number }>(result).map((r) => ({ day: r.day, count: Number(r.count) }))
    },

    /**
     * Per UTC day: the messages users sent (imported ones excluded), how many users sent them,
     * and the replies models generated (every alternative; greetings and imports have no model).
     */
    async messages(
      since: string,
    ): Promise<{ day: string; userMessages: number; activeUsers: number; replies: number }[]> {
      const sent = rowsOf<{ day: string; messages: number; users: number }>(
        await db.execute(sql`
          SELECT (m.created_at AT TIME ZONE 'UTC')::date::text AS day, count(*)::int AS messages,
                 count(DISTINCT s.user_id)::int AS users
            FROM ${chatMessages} m JOIN ${chatSessions} s ON s.id = m.session_id
           WHERE m.created_at >= ${since}::timestamptz AND m.author = 'user' AND NOT m.imported
           GROUP BY 1`),
      )
      const replies = rowsOf<{ day: string; replies: number }>(
        await db.execute(sql`
          SELECT (created_at AT TIME ZONE 'UTC')::date::text AS day, count(*)::int AS replies
            FROM ${chatSwipes} WHERE created_at >= ${since}::timestamptz AND model_id IS NOT NULL
           GROUP BY 1`),
      )
      const byDay = new Map<string, { day: string; userMessages: number; activeUsers: number; replies: number }>()
      const entry = (day: string) => {
        let found = byDay.get(day)
        if (!found) {
          found = { day, userMessages: 0, activeUsers: 0, replies: 0 }
          byDay.set(day, found)
        }
        return found
      }
      for (const r of sent)
        Object.assign(entry(r.day), { userMessages: Number(r.messages), activeUsers: Number(r.users) })
      for (const r of replies) entry(r.day).replies = Number(r.replies)
      return [...byDay.values()]
    },

    /** Paid orders per UTC day of payment and currency, the sandbox's left out (minor units). */
    async revenue(since: string): Promise<{ day: string; currency: string; amount: number; orders: number }[]> {
      const result = await db.execute(sql`
        SELECT (${orders.paidAt} AT TIME ZONE 'UTC')::date::text AS day, upper(${orders.currency}) AS currency,
               sum(${orders.amount})::bigint AS amount, count(*)::int AS orders
          FROM ${orders}
         WHERE ${orders.paidAt} >= ${since}::timestamptz AND ${orders.provider} <> 'sandbox'
         GROUP BY 1, 2`)
      return rowsOf<{ day: string; currency: string; amount: number; orders: number }>(result).map((r) => ({
        ...r,
        amount: Number(r.amount),
        orders: Number(r.orders),
      }))
    },
  }
}

export type HealthStatsRepo = ReturnType<typeof createHealthStatsRepo>
