import type { Db, Tx } from '#db/client.ts'
import { type EnqueueOptions, type JobKind, type JobPayloads, MINUTE } from './job-kinds.ts'
import { type ClaimedRow, createJobsRepo, insertJob, type JobExecutor } from './jobs.repo.ts'

export { type EnqueueOptions, JOB_KINDS, type JobKind, type JobPayloads } from './job-kinds.ts'

/**
 * Durable background work in the database (ADR 017), the same code on PGlite and PostgreSQL.
 *
 * - `enqueue` writes a job; given a transaction, the job exists exactly when the transaction commits
 *   (a registration and its verification mail).
 * - Workers claim due jobs with `FOR UPDATE SKIP LOCKED` for a lease, so several instances share
 *   the work and never run one job at the same time while its lease lasts.
 * - Done: the row is deleted. Failed: retried after a growing delay, up to the kind's attempts, then
 *   kept with `failed_at`. A worker that dies mid-job leaves its lease to expire; the job runs again.
 *   Handlers are therefore written to be safe to run twice.
 * - On shutdown, jobs that were cut short go back to the queue at once, for the next start.
 */

/** The delay before attempt `attempts + 1`: 10 s doubling, at most an hour, with ±20 % jitter. */
export function retryDelayMs(attempts: number): number {
  const base = Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 60 * MINUTE)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/** A failure that retrying cannot fix (a mailbox the server refuses for good): no more attempts. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError'
}

/**
 * Not now: the job runs again after `delayMs`, the attempt not counted (a memory summary giving way
 * to a user's reply on the same model, ADR 034).
 */
export class DeferJobError extends Error {
  override name = 'DeferJobError'
  readonly delayMs: number
  constructor(delayMs: number, message = 'deferred', options?: ErrorOptions) {
    super(message, options)
    this.delayMs = delayMs
  }
}

export type Job<K extends JobKind = JobKind> = {
  id: number
  kind: K
  payload: JobPayloads[K]
  /** 1 on the first run. */
  attempt: number
  /** Aborted when the worker shuts down; a handler should stop and throw. */
  signal: AbortSignal
}

export type JobHandler<K extends JobKind> = (job: Job<K>) => Promise<void>

export { insertJob, type JobExecutor }

export type JobQueueOptions = {
  log: (info: Record<string, unknown>, msg: string) => void
  /** For what an operator should look at: a job given up for good, a state that could not be saved (default: `log`). */
  warn?: (info: Record<string, unknown>, msg: string) => void
  /** How often an idle worker looks for due jobs (default 1 s). */
  pollMs?: number
  /** Jobs one worker runs at the same time (default 4). */
  concurrency?: number
  /** Tests shorten the retry delays and leases. */
  retryDelayMs?: (attempts: number) => number
  leaseMs?: number
}

export function createJobQueue(db: Db, options: JobQueueOptions) {
  const repo = createJobsRepo(db)
  const pollMs = options.pollMs ?? 1_000
  const concurrency = options.concurrency ?? 4
  const delayOf = options.retryDelayMs ?? retryDelayMs
  const warn = options.warn ?? options.log
  const handlers = new Map<JobKind, JobHandler<JobKind>>()
  /** Kinds that may run only so many at a time on this worker, and how many of each run now. */
  const limits = new Map<JobKind, number>()
  const runningByKind = new Map<string, number>()
  const running = new Set<Promise<void>>()
  const shutdown = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let started = false
  let polling: Promise<void> | undefined
  let again = false

  /**
   * Claims up to `limit` due jobs: of the kinds without a limit of their own in one statement, then
   * of each limited kind (`register(..., { concurrency })`) as many as it has free places here.
   */
  async function claim(limit: number): Promise<ClaimedRow[]> {
    if (handlers.size === 0 || limit <= 0) return []
    const open = [...handlers.keys()].filter((kind) => !limits.has(kind))
    const rows = open.length > 0 ? await repo.claim(open, limit, options.leaseMs) : []
    for (const [kind, max] of limits) {
      const free = Math.min(max - (runningByKind.get(kind) ?? 0), limit - rows.length)
      if (free > 0) rows.push(...(await repo.claim([kind], free, options.leaseMs)))
    }
    return rows
  }

  async function finish(row: ClaimedRow, error: unknown) {
    const id = Number(row.id)
    if (error === undefined) {
      // Only this claim's row: if the lease ran out and another worker took the job, it finishes it.
      await repo.complete(id, row.attempts)
      return
    }
    const message = describe(error).slice(0, 2_000)
    if (shutdown.signal.aborted) {
      // Cut short by shutdown: not the job's fault, back in the queue for the next worker at once.
      await repo.release(id, row.attempts, message)
      return
    }
    if (error instanceof DeferJobError) {
      const delay = Math.max(0, Math.round(error.delayMs))
      await repo.defer(id, row.attempts, message, delay)
      options.log({ jobId: id, kind: row.kind, retryInMs: delay, reason: error.message }, 'job deferred')
      return
    }
    const permanent = error instanceof PermanentJobError
    if (permanent || row.attempts >= row.max_attempts) {
      await repo.giveUp(id, row.attempts, message)
      warn({ jobId: id, kind: row.kind, attempts: row.attempts, err: error }, 'job failed for good')
      return
    }
    const delay = Math.max(0, Math.round(delayOf(row.attempts)))
    await repo.retryLater(id, row.attempts, message, delay)
    options.log(
      { jobId: id, kind: row.kind, attempts: row.attempts, retryInMs: delay, err: error },
      'job will be retried',
    )
  }

  async function run(row: ClaimedRow) {
    runningByKind.set(row.kind, (runningByKind.get(row.kind) ?? 0) + 1)
    try {
      await runClaimed(row)
    } finally {
      runningByKind.set(row.kind, (runningByKind.get(row.kind) ?? 1) - 1)
    }
  }

  async function runClaimed(row: ClaimedRow) {
    const handler = handlers.get(row.kind as JobKind)
    let failure: unknown
    try {
      if (!handler) throw new Error(`no handler for job kind ${row.kind}`)
      await handler({
        id: Number(row.id),
        kind: row.kind as JobKind,
        payload: row.payload as JobPayloads[JobKind],
        attempt: row.attempts,
        signal: shutdown.signal,
      })
    } catch (error) {
      failure = error ?? new Error('job failed')
    }
    try {
      await finish(row, failure)
    } catch (error) {
      // The database went away: the lease expires and the job runs again.
      warn({ jobId: Number(row.id), kind: row.kind, err: error }, 'job state could not be saved')
    }
  }

  /** Claims as many due jobs as there are free slots and starts them. */
  async function pollOnce() {
    if (shutdown.signal.aborted) return
    const rows = await claim(concurrency - running.size)
    for (const row of rows) {
      const task = run(row)
      running.add(task)
      void task.finally(() => {
        running.delete(task)
        // A slot is free: look for more at once rather than at the next tick.
        if (started) kick()
      })
    }
  }

  function schedule(ms: number) {
    if (!started || shutdown.signal.aborted) return
    clearTimeout(timer)
    timer = setTimeout(kick, ms)
    timer.unref()
  }

  /** Looks for due jobs now (after an enqueue in this process, or when a slot frees up). */
  function kick() {
    if (!started || shutdown.signal.aborted) return
    if (polling) {
      again = true
      return
    }
    polling = (async () => {
      try {
        do {
          again = false
          await pollOnce()
        } while (again && running.size < concurrency && !shutdown.signal.aborted)
      } catch (error) {
        options.log({ err: error }, 'job queue could not be read')
      } finally {
        polling = undefined
        schedule(pollMs)
      }
    })()
  }

  return {
    /**
     * What jobs of `kind` do. `concurrency`: at most this many of them run at once on this worker
     * (machine translations, one at a time on a model server, ADR 040); the others wait in the
     * table, unclaimed, while other kinds go on.
     */
    register<K extends JobKind>(kind: K, handler: JobHandler<K>, kindOptions: { concurrency?: number } = {}) {
      handlers.set(kind, handler as unknown as JobHandler<JobKind>)
      if (kindOptions.concurrency === undefined) limits.delete(kind)
      else limits.set(kind, Math.max(1, kindOptions.concurrency))
    },

    /** Writes a job (in `executor`'s transaction when given) and wakes this worker. */
    async enqueue<K extends JobKind>(
      kind: K,
      payload: JobPayloads[K],
      enqueueOptions: EnqueueOptions = {},
      executor: JobExecutor = db,
    ): Promise<boolean> {
      const written = await insertJob(executor, kind, payload, enqueueOptions)
      if (written && executor === db) kick()
      return written
    },

    kick,

    /** Starts polling. Without it (tools, some tests) jobs wait in the table for a worker. */
    start() {
      if (started) return
      started = true
      kick()
    },

    /** Claims and runs due jobs until none is left; for tests and tools. Returns how many ran. */
    async drain(): Promise<number> {
      let total = 0
      for (;;) {
        const rows = await claim(concurrency)
        if (rows.length === 0) return total
        await Promise.all(rows.map(run))
        total += rows.length
      }
    },

    /**
     * Stops claiming, aborts the handlers' signal and waits for the jobs in flight to end; the ones
     * cut short return to the queue.
     */
    async stop() {
      started = false
      clearTimeout(timer)
      shutdown.abort()
      await polling
      await Promise.allSettled([...running])
    },

    /**
     * The job with this key runs now: a waiting one is made due (not one running), else the newest
     * that failed for good is queued again as new. False when there is none to run or it is running.
     */
    retryNow: (key: string) =>
      repo.retryNow(key).then((queued) => {
        if (queued) kick()
        return queued
      }),

    /** Every kind's jobs by state, for the console (ADR 057). */
    byState: () => repo.byState(),

    /** The newest jobs that failed for good (no payloads). */
    failed: (limit = 100) => repo.failed(limit),

    /**
     * A failed job queued again with all its attempts, in a transaction `within` joins (the audit
     * record of ADR 054 commits with it).
     */
    async retryFailed(id: number, within: (tx: Tx, job: { kind: string; attempts: number }) => Promise<void>) {
      const outcome = await db.transaction(async (tx) => {
        const retried = await repo.retryFailed(tx, id)
        if (typeof retried !== 'string') await within(tx, retried)
        return retried
      })
      if (typeof outcome !== 'string') kick()
      return outcome
    },

    /** Jobs waiting or running, and those that failed for good, per kind. */
    counts: () => repo.counts(),
  }
}

export type JobQueue = ReturnType<typeof createJobQueue>

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  return String(error)
}
