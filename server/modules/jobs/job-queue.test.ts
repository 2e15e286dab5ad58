import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '#db/client.ts'
import { jobs } from '#db/schema/jobs.ts'
import { createJobQueue, insertJob, type JobQueueOptions, PermanentJobError } from '#server/modules/jobs/job-queue.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

const mail = (n: number) => ({
  to: `reader-${n}@example.test`,
  subject: `Hello ${n} — 你好 🎭`,
  text: 't',
  html: '<p>h</p>',
})
const quiet: JobQueueOptions['log'] = () => {}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await sleep(20)
  }
}

describe('job queue', () => {
  let database: DatabaseHandle
  const rows = () => database.db.select().from(jobs).orderBy(jobs.id)

  beforeAll(async () => {
    database = await openTestDatabase()
  })
  afterAll(async () => {
    await database.close()
  })
  beforeEach(async () => {
    await database.db.execute(sql`DELETE FROM jobs`)
  })

  it('runs a job once with its payload intact, then deletes it', async () => {
    const queue = createJobQueue(database.db, { log: quiet })
    const seen: unknown[] = []
    queue.register('mail', async (job) => {
      seen.push({ payload: job.payload, attempt: job.attempt })
    })
    expect(await queue.enqueue('mail', mail(1))).toBe(true)
    expect(await queue.drain()).toBe(1)
    expect(await queue.drain()).toBe(0)
    expect(seen).toEqual([{ payload: mail(1), attempt: 1 }])
    expect(await rows()).toEqual([])
  })

  it('keeps one unfinished job per key; the key is free again once it is done', async () => {
    const queue = createJobQueue(database.db, { log: quiet })
    let runs = 0
    queue.register('monthly-award', async () => {
      runs++
    })
    expect(await queue.enqueue('monthly-award', {}, { key: 'award:2026-11-21T10' })).toBe(true)
    expect(await queue.enqueue('monthly-award', {}, { key: 'award:2026-11-21T10' })).toBe(false)
    expect(await rows()).toHaveLength(1)
    await queue.drain()
    expect(runs).toBe(1)
    expect(await queue.enqueue('monthly-award', {}, { key: 'award:2026-11-21T10' })).toBe(true)
  })

  it('retries a failing job after a delay and keeps it, failed, after its last attempt', async () => {
    const delays: number[] = []
    const queue = createJobQueue(database.db, {
      log: quiet,
      retryDelayMs: (attempts) => {
        delays.push(attempts)
        return 0
      },
    })
    let runs = 0
    queue.register('chat-summary', async () => {
      runs++
      throw new Error(`model down (${runs})`)
    })
    await queue.enqueue('chat-summary', { sessionId: 's', userId: 'u', keptFromId: 3 }, { key: 'summary:s' })
    for (let i = 0; i < 6; i++) await queue.drain()
    // chat-summary allows four attempts.
    expect(runs).toBe(4)
    expect(delays).toEqual([1, 2, 3])
    const [row] = await rows()
    expect(row?.failedAt).toBeInstanceOf(Date)
    expect(row?.attempts).toBe(4)
    expect(row?.lastError).toBe('Error: model down (4)')
    expect(await queue.counts()).toEqual({ 'chat-summary': { pending: 0, failed: 1 } })
    // A failed job does not hold its key.
    expect(
      await queue.enqueue('chat-summary', { sessionId: 's', userId: 'u', keptFromId: 9 }, { key: 'summary:s' }),
    ).toBe(true)
  })

  it('waits the retry delay before the next attempt', async () => {
    const queue = createJobQueue(database.db, { log: quiet, retryDelayMs: () => 60_000 })
    let runs = 0
    queue.register('mail', async () => {
      runs++
      throw new Error('451 try later')
    })
    await queue.enqueue('mail', mail(2))
    await queue.drain()
    await queue.drain()
    expect(runs).toBe(1)
    const [row] = await rows()
    expect(row?.runAt.getTime()).toBeGreaterThan(Date.now() + 50_000)
    expect(row?.failedAt).toBeNull()
  })

  it('gives up at once on a permanent failure, and says so as a warning', async () => {
    const logged: string[] = []
    const warned: string[] = []
    const queue = createJobQueue(database.db, {
      log: (_info, msg) => logged.push(msg),
      warn: (_info, msg) => warned.push(msg),
      retryDelayMs: () => 0,
    })
    let runs = 0
    queue.register('mail', async () => {
      runs++
      throw new PermanentJobError('550 no such mailbox')
    })
    await queue.enqueue('mail', mail(3))
    await queue.drain()
    await queue.drain()
    expect(runs).toBe(1)
    expect((await rows())[0]?.failedAt).toBeInstanceOf(Date)
    expect(warned).toEqual(['job failed for good'])
    expect(logged).not.toContain('job failed for good')
  })

  it('writes a job only when the transaction that wrote it commits', async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await insertJob(tx, 'mail', mail(4))
        throw new Error('the registration failed')
      }),
    ).rejects.toThrow('the registration failed')
    expect(await rows()).toEqual([])
    await database.db.transaction(async (tx) => {
      await insertJob(tx, 'mail', mail(5))
    })
    expect((await rows()).map((r) => r.payload)).toEqual([mail(5)])
  })

  it('does not run a job before its time', async () => {
    const queue = createJobQueue(database.db, { log: quiet })
    let runs = 0
    queue.register('mail', async () => {
      runs++
    })
    await queue.enqueue('mail', mail(6), { runAt: new Date(Date.now() + 60_000) })
    expect(await queue.drain()).toBe(0)
    expect(runs).toBe(0)
  })

  it('a job whose worker died runs again elsewhere once the lease expires', async () => {
    // The first worker claims the job and never comes back (a crash or a kill -9).
    const dead = createJobQueue(database.db, { log: quiet, leaseMs: 300 })
    let claimed = false
    dead.register('mail', async () => {
      claimed = true
      await new Promise(() => {})
    })
    await dead.enqueue('mail', mail(7))
    void dead.drain()
    await waitFor(() => claimed)

    const alive = createJobQueue(database.db, { log: quiet, leaseMs: 300 })
    const ran: number[] = []
    alive.register('mail', async (job) => {
      ran.push(job.attempt)
    })
    // Still leased: nobody else may take it.
    expect(await alive.drain()).toBe(0)
    await sleep(350)
    expect(await alive.drain()).toBe(1)
    expect(ran).toEqual([2])
    expect(await rows()).toEqual([])
  })

  it('on shutdown, a job cut short goes back to the queue without using up an attempt', async () => {
    const first = createJobQueue(database.db, { log: quiet, pollMs: 20 })
    let started = false
    first.register('chat-summary', async (job) => {
      started = true
      await new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(new Error('aborted'))))
    })
    await first.enqueue('chat-summary', { sessionId: 'x', userId: 'u', keptFromId: 1 })
    first.start()
    await waitFor(() => started)
    await first.stop()
    const [row] = await rows()
    expect(row).toMatchObject({ attempts: 0, lockedUntil: null, failedAt: null })

    const second = createJobQueue(database.db, { log: quiet })
    const attempts: number[] = []
    second.register('chat-summary', async (job) => {
      attempts.push(job.attempt)
    })
    expect(await second.drain()).toBe(1)
    expect(attempts).toEqual([1])
  })

  it('two workers polling the same table run each of 40 jobs exactly once', async () => {
    const runs = new Map<string, number>()
    const workers = [1, 2].map((n) => {
      const queue = createJobQueue(database.db, { log: quiet, pollMs: 10, concurrency: 3 })
      queue.register('mail', async (job) => {
        runs.set(job.payload.to, (runs.get(job.payload.to) ?? 0) + 1)
        await sleep(n * 3)
      })
      return queue
    })
    for (let i = 0; i < 40; i++) await insertJob(database.db, 'mail', mail(100 + i))
    for (const w of workers) w.start()
    await waitFor(async () => (await rows()).length === 0)
    await Promise.all(workers.map((w) => w.stop()))
    expect(runs.size).toBe(40)
    expect([...runs.values()].every((n) => n === 1)).toBe(true)
  })

  it('a started worker picks up a job enqueued in its process at once', async () => {
    // A long poll interval: only the wake-up on enqueue can run the job in time.
    const queue = createJobQueue(database.db, { log: quiet, pollMs: 60_000 })
    const done: string[] = []
    queue.register('mail', async (job) => {
      done.push(job.payload.to)
    })
    queue.start()
    await sleep(50)
    await queue.enqueue('mail', mail(8))
    await waitFor(() => done.length === 1, 5_000)
    await queue.stop()
  })

  it('runs at most `concurrency` jobs of a limited kind at once, while other kinds use the free slots', async () => {
    const queue = createJobQueue(database.db, { log: quiet, pollMs: 10, concurrency: 4 })
    let inFlight = 0
    let most = 0
    const translated: string[] = []
    queue.register(
      'translate-role',
      async (job) => {
        inFlight++
        most = Math.max(most, inFlight)
        await sleep(30)
        translated.push(job.payload.roleId)
        inFlight--
      },
      { concurrency: 1 },
    )
    const mailed: string[] = []
    queue.register('mail', async (job) => {
      mailed.push(job.payload.to)
    })
    for (let i = 0; i < 5; i++) await insertJob(database.db, 'translate-role', { roleId: `r${i}`, locale: 'ja' })
    for (let i = 0; i < 3; i++) await insertJob(database.db, 'mail', mail(200 + i))
    queue.start()
    // The mails do not wait for the translations queued before them.
    await waitFor(() => mailed.length === 3, 5_000)
    expect(translated.length).toBeLessThan(5)
    await waitFor(() => translated.length === 5, 5_000)
    await queue.stop()
    expect(most).toBe(1)
    // drain() keeps the limit too.
    for (let i = 0; i < 3; i++) await insertJob(database.db, 'translate-role', { roleId: `s${i}`, locale: 'ko' })
    most = 0
    const drainer = createJobQueue(database.db, { log: quiet, concurrency: 4 })
    drainer.register(
      'translate-role',
      async () => {
        inFlight++
        most = Math.max(most, inFlight)
        await sleep(10)
        inFlight--
      },
      { concurrency: 1 },
    )
    expect(await drainer.drain()).toBe(3)
    expect(most).toBe(1)
  })
})
