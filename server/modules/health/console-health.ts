import type { Audit } from '#contracts/admin-audit.ts'
import {
  HEALTH_DAYS,
  type HealthDaily,
  type HealthDay,
  type HealthJobs,
  type JOB_STATES,
  REPLY_ERROR_KINDS,
} from '#contracts/admin-health.ts'
import type { ModelHealth as ModelHealthStatus } from '#contracts/api-schemas.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ReplyOutcome } from '#server/modules/chat/generation.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import type { ModelRegistry } from '#server/modules/models/models.ts'
import { type HealthStatsRepo, type ReplyStat, replyStatOf, TTFT_BUCKETS_MS } from './health-stats.repo.ts'

const DAY_MS = 86_400_000

/** A UTC date (YYYY-MM-DD). */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10)

/**
 * The histogram bucket that holds the p-th fraction of `histogram`'s replies (the nearest rank):
 * its upper bound, or `over` when it is the last bucket, above every bound.
 */
export function percentileOf(histogram: number[], p: number): { ms: number | null; over: boolean } {
  const total = histogram.reduce((a, b) => a + b, 0)
  if (total === 0) return { ms: null, over: false }
  const rank = Math.max(1, Math.ceil(p * total))
  let seen = 0
  for (const [index, count] of histogram.entries()) {
    seen += count
    if (seen >= rank) {
      const bound = TTFT_BUCKETS_MS[index]
      return bound === undefined ? { ms: null, over: true } : { ms: bound, over: false }
    }
  }
  return { ms: null, over: true }
}

function emptyDay(day: string): HealthDay & { ttftTotal: number } {
  return {
    day,
    signUps: 0,
    activeUsers: 0,
    userMessages: 0,
    replies: 0,
    errors: Object.fromEntries(REPLY_ERROR_KINDS.map((k) => [k, 0])) as HealthDay['errors'],
    stopped: 0,
    ttft: {
      count: 0,
      meanMs: null,
      p50Ms: null,
      p95Ms: null,
      p50OverLastBound: false,
      p95OverLastBound: false,
      histogram: new Array(TTFT_BUCKETS_MS.length + 1).fill(0),
    },
    revenue: [],
    ttftTotal: 0,
  }
}

/** How long replies' figures gather in memory before they are written together. */
export const REPLY_STATS_FLUSH_MS = 1_000

/**
 * Adds each reply to today's figures (ADR 057). The replies of a second are added up in memory and
 * written in one upsert, not awaited by any reply (a failure is logged, the replies are not
 * affected): one statement a second instead of one per reply. `flush` writes what is gathered now
 * (before the console reads the figures, and at shutdown).
 */
export function createReplyRecorder(
  stats: Pick<HealthStatsRepo, 'record'>,
  warn: ConsoleHealthDeps['warn'],
  flushMs = REPLY_STATS_FLUSH_MS,
) {
  let pending = new Map<string, ReplyStat>()
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> = Promise.resolve()

  function flush(): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    if (pending.size === 0) return writing
    const batch = [...pending.values()]
    pending = new Map()
    // One write at a time, in order: the next batch waits for the one before.
    writing = writing.then(() =>
      stats.record(batch).catch((err: unknown) => {
        warn({ err, replies: batch.reduce((n, s) => n + s.replies, 0) }, 'reply statistics not recorded')
      }),
    )
    return writing
  }

  const record = (modelId: string, outcome: ReplyOutcome, ttftMs: number | null) => {
    const stat = replyStatOf(utcDay(new Date()), modelId, outcome, ttftMs)
    const key = `${stat.day}\n${stat.modelId}\n${stat.outcome}\n${stat.ttftBucket}`
    const known = pending.get(key)
    if (known) {
      known.replies += 1
      known.ttftMsTotal += stat.ttftMsTotal
    } else pending.set(key, stat)
    if (!timer) {
      timer = setTimeout(() => void flush(), flushMs)
      timer.unref()
    }
  }
  return Object.assign(record, { flush })
}

export type ConsoleHealthDeps = {
  stats: HealthStatsRepo
  jobs: Pick<JobQueue, 'byState' | 'failed' | 'retryFailed'>
  audit: Audit
  models: Pick<ModelRegistry, 'models' | 'defaultModel'>
  statuses: () => Record<string, ModelHealthStatus>
  warn: (info: Record<string, unknown>, msg: string) => void
  /** Writes the replies' figures still gathered in memory (the recorder's `flush`). */
  flushReplies?: (() => Promise<void>) | undefined
}

/** The console's health dashboard (ADR 057): the last 30 days, the job queue, the models. */
export function createConsoleHealth({
  stats,
  jobs,
  audit,
  models,
  statuses,
  flushReplies,
}: Omit<ConsoleHealthDeps, 'warn'>) {
  return {
    /** The last 30 UTC days up to `now`'s, oldest first; a day with nothing is zeros. */
    async daily(now = new Date()): Promise<HealthDaily> {
      // The replies of the last second are counted too.
      await flushReplies?.()
      const first = new Date(Date.parse(utcDay(now)) - (HEALTH_DAYS - 1) * DAY_MS)
      const since = utcDay(first)
      const sinceInstant = first.toISOString()
      const days = new Map<string, ReturnType<typeof emptyDay>>()
      for (let i = 0; i < HEALTH_DAYS; i++) {
        const day = utcDay(new Date(first.getTime() + i * DAY_MS))
        days.set(day, emptyDay(day))
      }
      const [signUps, messages, revenue, replyStats] = await Promise.all([
        stats.signUps(sinceInstant),
        stats.messages(sinceInstant),
        stats.revenue(sinceInstant),
        stats.replyStats(since),
      ])
      for (const r of signUps) {
        const day = days.get(r.day)
        if (day) day.signUps = r.count
      }
      for (const r of messages) {
        const day = days.get(r.day)
        if (day) Object.assign(day, { userMessages: r.userMessages, activeUsers: r.activeUsers, replies: r.replies })
      }
      const currencies = new Set<string>()
      for (const r of revenue) {
        const day = days.get(r.day)
        if (!day) continue
        currencies.add(r.currency)
        day.revenue.push({ currency: r.currency, amount: r.amount, orders: r.orders })
      }
      for (const r of replyStats) {
        const day = days.get(r.day)
        if (!day) continue
        if (r.outcome === 'stopped') day.stopped += r.replies
        else if ((REPLY_ERROR_KINDS as readonly string[]).includes(r.outcome)) {
          day.errors[r.outcome as keyof HealthDay['errors']] += r.replies
        }
        if (r.ttftBucket >= 0) {
          day.ttft.histogram[r.ttftBucket] = (day.ttft.histogram[r.ttftBucket] ?? 0) + r.replies
          day.ttft.count += r.replies
          day.ttftTotal += r.ttftMsTotal
        }
      }
      return {
        days: [...days.values()].map(({ ttftTotal, ...day }) => {
          const p50 = percentileOf(day.ttft.histogram, 0.5)
          const p95 = percentileOf(day.ttft.histogram, 0.95)
          day.revenue.sort((a, b) => a.currency.localeCompare(b.currency))
          return {
            ...day,
            ttft: {
              ...day.ttft,
              meanMs: day.ttft.count > 0 ? Math.round(ttftTotal / day.ttft.count) : null,
              p50Ms: p50.ms,
              p95Ms: p95.ms,
              p50OverLastBound: p50.over,
              p95OverLastBound: p95.over,
            },
          }
        }),
        ttftBucketsMs: [...TTFT_BUCKETS_MS],
        currencies: [...currencies].sort(),
      }
    },

    /** The job queue: every kind's jobs per state, and the newest that failed for good. */
    async jobs(): Promise<HealthJobs> {
      const [byState, failed] = await Promise.all([jobs.byState(), jobs.failed(100)])
      const kinds = new Map<string, Record<(typeof JOB_STATES)[number], number>>()
      for (const row of byState) {
        let counts = kinds.get(row.kind)
        if (!counts) {
          counts = { waiting: 0, scheduled: 0, running: 0, failed: 0 }
          kinds.set(row.kind, counts)
        }
        counts[row.state] += row.count
      }
      return {
        kinds: [...kinds.entries()].map(([kind, counts]) => ({ kind, counts })),
        failed: failed.map((job) => ({
          ...job,
          failedAt: job.failedAt.toISOString(),
          createdAt: job.createdAt.toISOString(),
        })),
      }
    },

    /** A failed job queued again with all its attempts; audited as `job.retry` in the same transaction. */
    async retryJob(id: number, actorId: string, note: string): Promise<{ id: number; kind: string }> {
      const outcome = await jobs.retryFailed(id, (tx, job) =>
        audit(tx, {
          actorId,
          action: 'job.retry',
          targetType: 'job',
          targetId: String(id),
          note,
          details: { kind: job.kind, attemptsBefore: job.attempts },
        }),
      )
      if (outcome === 'not-failed')
        throw AppError.notFound('No failed job has this id: it may have been retried already.')
      if (outcome === 'key-taken') {
        throw AppError.conflict('A job doing the same work is already queued.', { reason: 'job_already_queued' })
      }
      return { id, kind: outcome.kind }
    },

    /** The configured models with their last check and today's replies. */
    async models(now = new Date()) {
      const today = utcDay(now)
      const rows = await stats.replyStats(today)
      const status = statuses()
      return models.models.map((model) => {
        const own = rows.filter((r) => r.modelId === model.id && r.day === today)
        const count = (pick: (outcome: string) => boolean) =>
          own.filter((r) => pick(r.outcome)).reduce((sum, r) => sum + r.replies, 0)
        return {
          id: model.id,
          name: model.name,
          host: hostOf(model.baseUrl),
          premium: model.premium,
          default: model.id === models.defaultModel.id,
          status: status[model.id] ?? 'unknown',
          today: { ok: count((o) => o === 'ok'), failed: count((o) => o !== 'ok' && o !== 'stopped') },
        }
      })
    },
  }
}

export type ConsoleHealth = ReturnType<typeof createConsoleHealth>

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host
  } catch {
    return ''
  }
}
