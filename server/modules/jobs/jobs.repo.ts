import { sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { type EnqueueOptions, JOB_KINDS, type JobKind, type JobPayloads } from './job-kinds.ts'

/** A Drizzle client or the transaction a repo is in. */
export type JobExecutor = Pick<Db, 'execute'>

export type JobState = 'waiting' | 'scheduled' | 'running' | 'failed'

export type FailedJob = {
  id: number
  kind: string
  attempts: number
  maxAttempts: number
  lastError: string | null
  failedAt: Date
  createdAt: Date
}

export type ClaimedRow = { id: number | string; kind: string; payload: unknown; attempts: number; max_attempts: number }

/**
 * Writes a job with `executor` (the caller's transaction, or the database). Returns false when an
 * unfinished job with the same key exists, in which case nothing is written.
 */
export async function insertJob<K extends JobKind>(
  executor: JobExecutor,
  kind: K,
  payload: JobPayloads[K],
  options: EnqueueOptions = {},
): Promise<boolean> {
  const settings = JOB_KINDS[kind]
  const runAt = options.runAt ?? null
  const result = await executor.execute(sql`
    INSERT INTO jobs (kind, payload, key, run_at, max_attempts, lease_ms)
    VALUES (${kind}, ${JSON.stringify(payload)}::jsonb, ${options.key ?? null},
            COALESCE(${runAt?.toISOString() ?? null}::timestamptz, now()), ${settings.maxAttempts}, ${settings.leaseMs})
    ON CONFLICT (key) WHERE failed_at IS NULL DO NOTHING
    RETURNING id`)
  return rowsOf(result).length > 0
}

/** The queue's statements. Every change after a claim names the claim (`attempts`), so a worker whose lease ran out cannot undo another's. */
export function createJobsRepo(db: Db) {
  return {
    /** Takes up to `limit` due jobs of these kinds for their lease (or `leaseMs`), skipping those others hold. */
    async claim(kinds: string[], limit: number, leaseMs?: number): Promise<ClaimedRow[]> {
      const lease = leaseMs === undefined ? sql`lease_ms` : sql`${leaseMs}::int`
      const result = await db.execute(sql`
        UPDATE jobs
           SET attempts = attempts + 1,
               locked_until = now() + ${lease} * interval '1 millisecond'
         WHERE id IN (
           SELECT id FROM jobs
            WHERE failed_at IS NULL
              AND run_at <= now()
              AND (locked_until IS NULL OR locked_until <= now())
              AND kind IN (${sql.join(
                kinds.map((k) => sql`${k}`),
                sql`, `,
              )})
            ORDER BY run_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, attempts, max_attempts`)
      return rowsOf(result) as ClaimedRow[]
    },

    /** Done: the row goes (with it any personal data the payload held). */
    async complete(id: number, attempts: number) {
      await db.execute(sql`DELETE FROM jobs WHERE id = ${id} AND attempts = ${attempts}`)
    },

    /** Cut short by a shutdown: back in the queue at once, the attempt not counted. */
    async release(id: number, attempts: number, error: string) {
      await db.execute(sql`
        UPDATE jobs SET locked_until = NULL, attempts = attempts - 1, run_at = now(), last_error = ${error}
         WHERE id = ${id} AND attempts = ${attempts}`)
    },

    /** Not now (DeferJobError): runs again after `delayMs`, the attempt not counted. */
    async defer(id: number, attempts: number, error: string, delayMs: number) {
      await db.execute(sql`
        UPDATE jobs SET locked_until = NULL, attempts = attempts - 1, last_error = ${error},
                        run_at = now() + ${delayMs} * interval '1 millisecond'
         WHERE id = ${id} AND attempts = ${attempts}`)
    },

    /** See JobQueue.retryNow. */
    async retryNow(key: string): Promise<boolean> {
      const waiting = rowsOf(
        await db.execute(sql`
          UPDATE jobs SET run_at = now()
           WHERE key = ${key} AND failed_at IS NULL AND (locked_until IS NULL OR locked_until <= now())
          RETURNING id`),
      )
      if (waiting.length > 0) return true
      const again = rowsOf(
        await db.execute(sql`
          INSERT INTO jobs (kind, payload, key, run_at, max_attempts, lease_ms)
          SELECT kind, payload, key, now(), max_attempts, lease_ms FROM jobs
           WHERE key = ${key} AND failed_at IS NOT NULL
           ORDER BY id DESC LIMIT 1
          ON CONFLICT (key) WHERE failed_at IS NULL DO NOTHING
          RETURNING id`),
      )
      return again.length > 0
    },

    async retryLater(id: number, attempts: number, error: string, delayMs: number) {
      await db.execute(sql`
        UPDATE jobs SET locked_until = NULL, last_error = ${error},
                        run_at = now() + ${delayMs} * interval '1 millisecond'
         WHERE id = ${id} AND attempts = ${attempts}`)
    },

    /** Failed for good: kept for an operator, its key freed. */
    async giveUp(id: number, attempts: number, error: string) {
      await db.execute(sql`
        UPDATE jobs SET failed_at = now(), locked_until = NULL, last_error = ${error}
         WHERE id = ${id} AND attempts = ${attempts}`)
    },

    /**
     * Every kind's jobs by state (ADR 057): `waiting` (due, nobody holds it), `scheduled` (not due
     * yet: a retry's delay or a later start), `running` (claimed, its lease not over), `failed`.
     */
    async byState(): Promise<{ kind: string; state: JobState; count: number }[]> {
      const result = await db.execute(sql`
        SELECT kind, CASE WHEN failed_at IS NOT NULL THEN 'failed'
                          WHEN locked_until > now() THEN 'running'
                          WHEN run_at > now() THEN 'scheduled'
                          ELSE 'waiting' END AS state,
               count(*)::int AS count
          FROM jobs GROUP BY 1, 2 ORDER BY 1, 2`)
      return (rowsOf(result) as { kind: string; state: JobState; count: number }[]).map((r) => ({
        ...r,
        count: Number(r.count),
      }))
    },

    /** The newest jobs that failed for good, without their payloads (they may hold personal data). */
    async failed(limit: number): Promise<FailedJob[]> {
      const result = await db.execute(sql`
        SELECT id, kind, attempts, max_attempts, last_error, failed_at, created_at FROM jobs
         WHERE failed_at IS NOT NULL ORDER BY failed_at DESC, id DESC LIMIT ${limit}`)
      return (rowsOf(result) as Record<string, unknown>[]).map((r) => ({
        id: Number(r.id),
        kind: String(r.kind),
        attempts: Number(r.attempts),
        maxAttempts: Number(r.max_attempts),
        lastError: (r.last_error as string | null) ?? null,
        failedAt: new Date(r.failed_at as string),
        createdAt: new Date(r.created_at as string),
      }))
    },

    /**
     * A failed job back in the queue, due now with all its attempts again (in `executor`, the
     * operator's transaction). `not-failed`: no such job failed for good (one retried already);
     * `key-taken`: an unfinished job with its key waits already, which does the same work.
     */
    async retryFailed(
      executor: JobExecutor,
      id: number,
    ): Promise<{ kind: string; attempts: number } | 'not-failed' | 'key-taken'> {
      const found = rowsOf(
        await executor.execute(
          sql`SELECT kind, key, attempts FROM jobs WHERE id = ${id} AND failed_at IS NOT NULL FOR UPDATE`,
        ),
      )[0]
      if (!found) return 'not-failed'
      if (found.key !== null) {
        const taken = rowsOf(
          await executor.execute(sql`SELECT 1 FROM jobs WHERE key = ${found.key as string} AND failed_at IS NULL`),
        )
        if (taken.length > 0) return 'key-taken'
      }
      await executor.execute(sql`
        UPDATE jobs SET failed_at = NULL, attempts = 0, run_at = now(), locked_until = NULL WHERE id = ${id}`)
      return { kind: String(found.kind), attempts: Number(found.attempts) }
    },

    async counts(): Promise<Record<string, { pending: number; failed: number }>> {
      const result = await db.execute(sql`
        SELECT kind, count(*) FILTER (WHERE failed_at IS NULL)::int AS pending,
               count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
          FROM jobs GROUP BY kind`)
      const counts: Record<string, { pending: number; failed: number }> = {}
      for (const row of rowsOf(result) as { kind: string; pending: number; failed: number }[]) {
        counts[row.kind] = { pending: Number(row.pending), failed: Number(row.failed) }
      }
      return counts
    },
  }
}

/** node-postgres answers `{ rows }`, PGlite too; some drivers answer the array itself. */
function rowsOf(result: unknown): Record<string, unknown>[] {
  if (Array.isArray(result)) return result
  return ((result as { rows?: Record<string, unknown>[] }).rows ?? []) as Record<string, unknown>[]
}
