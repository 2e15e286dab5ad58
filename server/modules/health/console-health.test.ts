import { sql } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { HealthDaily, HealthDay, HealthJobs } from '#contracts/admin-health.ts'
import { CONSOLE_TOKEN_HEADER } from '#server/modules/staff/console-sessions.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { staffMember } from '#tests/helpers/staff.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { percentileOf, utcDay } from './console-health.ts'
import { TTFT_BUCKETS_MS, ttftBucketOf } from './health-stats.repo.ts'

// The console's health dashboard (ADR 057) through the API, on PGlite (or PostgreSQL with
// TEST_DATABASE_URL): known data in, the day's figures out.

describe('the first-token histogram', () => {
  it('puts a time in the first bucket whose bound holds it, above them all in the last', () => {
    expect(ttftBucketOf(0)).toBe(0)
    expect(ttftBucketOf(250)).toBe(0)
    expect(ttftBucketOf(251)).toBe(1)
    expect(ttftBucketOf(64_000)).toBe(TTFT_BUCKETS_MS.length - 1)
    expect(ttftBucketOf(64_001)).toBe(TTFT_BUCKETS_MS.length)
  })

  it('reads a percentile as the bound of the bucket holding its rank', () => {
    const histogram = new Array(TTFT_BUCKETS_MS.length + 1).fill(0)
    expect(percentileOf(histogram, 0.5)).toEqual({ ms: null, over: false })
    histogram[2] = 9 // ≤ 1 s
    histogram[5] = 1 // ≤ 8 s
    expect(percentileOf(histogram, 0.5)).toEqual({ ms: 1_000, over: false })
    expect(percentileOf(histogram, 0.9)).toEqual({ ms: 1_000, over: false })
    expect(percentileOf(histogram, 0.95)).toEqual({ ms: 8_000, over: false })
    histogram[TTFT_BUCKETS_MS.length] = 90
    expect(percentileOf(histogram, 0.5)).toEqual({ ms: null, over: true })
  })
})

type Person = { id: string; email: string; token: string; console?: string }

let api: OpenAiApiDouble
let t: TestApp
let admin: Person
const DAY = 86_400_000

beforeAll(async () => {
  api = await startOpenAiApi({ reply: 'The lamp is lit.' })
  t = await buildTestApp({
    env: {
      MODELS_FILE: writeModelsFile([
        { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
      ]),
      LLM_TIMEOUT_MS: '20000',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '3000',
    },
    plansFile: writePlansFile(shippedPlans()),
    // Jobs seeded below stay as they are: no worker runs them.
    jobQueue: { worker: false },
  })
  admin = await staffMember(t, 'admin')
})
afterAll(async () => {
  await t?.close()
  await api?.close()
})

function call(who: Person, request: InjectOptions) {
  const headers: Record<string, string> = { authorization: `Bearer ${who.token}` }
  if (who.console) headers[CONSOLE_TOKEN_HEADER] = who.console
  return t.app.inject({ ...request, headers })
}

const run = (query: ReturnType<typeof sql>) => t.database.db.execute(query)

async function daily(): Promise<HealthDaily> {
  const res = await call(admin, { method: 'GET', url: '/api/admin/health/daily' })
  expect(res.statusCode).toBe(200)
  expect(res.headers['cache-control']).toContain('private')
  return res.json().data
}
const dayOf = (data: HealthDaily, day: string) => data.days.find((d) => d.day === day) as HealthDay

describe('GET /api/admin/health/daily', () => {
  it('counts a day of known data exactly, and every other day of the 30 is zeros', async () => {
    const today = utcDay(new Date())
    const fiveAgo = utcDay(new Date(Date.now() - 5 * DAY))
    const firstDay = utcDay(new Date(Date.now() - 29 * DAY))
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })

    // Five days ago: three accounts made, two of them sent messages (3 and 1), two replies generated.
    const people = [await t.login(), await t.login(), await t.login()]
    const sessions: string[] = []
    for (const p of people) {
      await run(sql`UPDATE users SET created_at = ${`${fiveAgo}T10:00:00Z`}::timestamptz WHERE id = ${p.user.id}`)
      const res = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, p)
      sessions.push(res.json().data.id)
    }
    const message = async (session: string, author: 'user' | 'assistant', at: string, imported = false) => {
      const rows = await run(sql`
        INSERT INTO chat_messages (session_id, author, content, tokens, imported, created_at)
        VALUES (${session}, ${author}, 'Hello', 1, ${imported}, ${at}::timestamptz) RETURNING id`)
      return (rows as unknown as { rows: { id: number }[] }).rows[0]?.id as number
    }
    const at = `${fiveAgo}T12:00:00Z`
    for (let i = 0; i < 3; i++) await message(sessions[0] as string, 'user', at)
    await message(sessions[1] as string, 'user', at)
    // An imported message counts for nobody; a reply counts when a model generated it.
    await message(sessions[2] as string, 'user', at, true)
    const reply = await message(sessions[0] as string, 'assistant', at)
    await run(sql`
      INSERT INTO chat_swipes (message_id, content, tokens, status, model_id, created_at)
      VALUES (${reply}, 'Hi', 1, 'complete', 'tavern-8b', ${at}::timestamptz),
             (${reply}, 'Hi again', 1, 'complete', 'tavern-8b', ${at}::timestamptz),
             (${reply}, 'Imported', 1, 'complete', NULL, ${at}::timestamptz)`)

    // Revenue: two paid euro orders and a dollar one that day; the sandbox's, an unpaid one and one
    // paid 30 days ago are left out. On the first day of the window: one more.
    const plan = ((await run(sql`SELECT id FROM plans LIMIT 1`)) as unknown as { rows: { id: string }[] }).rows[0]?.id
    const order = (id: string, provider: string, amount: number, currency: string, paidAt: string | null) =>
      run(sql`
        INSERT INTO orders (id, user_id, plan_id, billing_cycle, payment_type, provider, status, amount, currency, paid_at)
        VALUES (${id}, ${people[0]?.user.id}, ${plan}, 'monthly', 'card', ${provider},
                ${paidAt ? 'paid' : 'pending'}, ${amount}, ${currency}, ${paidAt}::timestamptz)`)
    await order('o1', 'stripe', 999, 'eur', `${fiveAgo}T08:00:00Z`)
    await order('o2', 'btcpay', 1999, 'eur', `${fiveAgo}T23:59:59Z`)
    await order('o3', 'stripe', 500, 'usd', `${fiveAgo}T09:00:00Z`)
    await order('o4', 'sandbox', 999, 'eur', `${fiveAgo}T09:00:00Z`)
    await order('o5', 'stripe', 999, 'eur', null)
    await order('o6', 'stripe', 777, 'eur', `${firstDay}T00:00:00Z`)
    await order('o7', 'stripe', 888, 'eur', new Date(Date.parse(`${firstDay}T00:00:00Z`) - 1).toISOString())

    // Today: replies through the chat, each with a known first-token time and ending.
    const a = await t.login()
    const b = await t.login()
    const chatOf = async (p: typeof a) =>
      (await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, p)).json().data
        .id as string
    const [chatA, chatB] = [await chatOf(a), await chatOf(b)]
    const send = (p: typeof a, sessionId: string) =>
      t.injectWithLogin(
        { method: 'POST', url: '/api/chat', payload: { sessionId, message: 'Hello?', chatModelId: 'tavern-8b' } },
        p,
      )
    // Three within 2 s (1.2 s), one within 4 s (2.5 s): p50 at most 2 s, p95 at most 4 s.
    for (const delay of [1_200, 1_200, 1_200, 2_500]) {
      api.firstTokenDelayMs = delay
      expect((await send(a, chatA)).statusCode).toBe(200)
    }
    // No first token within the limit: a timeout; a refusal of the provider: a provider error.
    api.firstTokenDelayMs = 3_500
    expect((await send(b, chatB)).statusCode).toBe(504)
    api.firstTokenDelayMs = 0
    api.fail(404, 'The model `tavern-8b` does not exist.')
    expect((await send(b, chatB)).statusCode).toBe(502)

    // The statistics are written beside the reply, not waited for.
    await vi.waitFor(
      async () => {
        const rows = await run(sql`SELECT coalesce(sum(replies), 0)::int AS n FROM model_daily_stats`)
        expect(Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n)).toBe(6)
      },
      { timeout: 5_000 },
    )

    const data = await daily()
    expect(data.days).toHaveLength(30)
    expect(data.days[0]?.day).toBe(firstDay)
    expect(data.days[29]?.day).toBe(today)
    expect(data.currencies).toEqual(['EUR', 'USD'])

    const past = dayOf(data, fiveAgo)
    expect(past).toMatchObject({ signUps: 3, activeUsers: 2, userMessages: 4, replies: 2, stopped: 0 })
    expect(past.revenue).toEqual([
      { currency: 'EUR', amount: 2998, orders: 2 },
      { currency: 'USD', amount: 500, orders: 1 },
    ])
    expect(past.ttft.count).toBe(0)
    expect(dayOf(data, firstDay).revenue).toEqual([{ currency: 'EUR', amount: 777, orders: 1 }])

    const now = dayOf(data, today)
    expect(now).toMatchObject({ activeUsers: 2, userMessages: 6, replies: 4, stopped: 0 })
    expect(now.errors).toEqual({ timeout: 1, provider: 1, invalid: 0, cut: 0, aborted: 0 })
    expect(now.ttft).toMatchObject({ count: 4, p50Ms: 2_000, p95Ms: 4_000, p50OverLastBound: false })
    expect(now.ttft.histogram[ttftBucketOf(1_500)]).toBe(3)
    expect(now.ttft.histogram[ttftBucketOf(3_000)]).toBe(1)
    expect(now.ttft.meanMs).toBeGreaterThanOrEqual(1_500)
    expect(now.ttft.meanMs).toBeLessThan(2_500)

    // Every other day holds nothing.
    for (const day of data.days.filter((d) => ![fiveAgo, today, firstDay].includes(d.day))) {
      expect([day.day, day.userMessages, day.replies, day.activeUsers, day.revenue, day.ttft.count]).toEqual([
        day.day,
        0,
        0,
        0,
        [],
        0,
      ])
    }
  }, 60_000)
})

describe('the job queue', () => {
  const seed = async (kind: string, state: 'failed' | 'waiting' | 'scheduled', key: string | null = null) => {
    const rows = await run(sql`
      INSERT INTO jobs (kind, payload, key, run_at, attempts, max_attempts, lease_ms, last_error, failed_at)
      VALUES (${kind}, '{"to":"someone@example.test"}'::jsonb, ${key},
              ${state === 'scheduled' ? sql`now() + interval '1 hour'` : sql`now()`},
              ${state === 'failed' ? 16 : 1}, 16, 120000,
              ${state === 'failed' ? 'Error: SMTP said no' : null}, ${state === 'failed' ? sql`now()` : null})
      RETURNING id`)
    return Number((rows as unknown as { rows: { id: number }[] }).rows[0]?.id)
  }
  const jobs = async (): Promise<HealthJobs> =>
    (await call(admin, { method: 'GET', url: '/api/admin/health/jobs' })).json().data
  const retry = (id: number, note = 'SMTP fixed') =>
    call(admin, { method: 'POST', url: '/api/admin/health/jobs/retry', payload: { id, note } })

  it('counts by kind and state and lists the failed ones without their payloads', async () => {
    await run(sql`DELETE FROM jobs`)
    const failed = await seed('mail', 'failed')
    await seed('mail', 'waiting')
    await seed('mail', 'scheduled')
    await seed('chat-purge', 'scheduled')
    const data = await jobs()
    expect(data.kinds).toEqual([
      { kind: 'chat-purge', counts: { waiting: 0, scheduled: 1, running: 0, failed: 0 } },
      { kind: 'mail', counts: { waiting: 1, scheduled: 1, running: 0, failed: 1 } },
    ])
    expect(data.failed).toEqual([
      expect.objectContaining({
        id: failed,
        kind: 'mail',
        attempts: 16,
        maxAttempts: 16,
        lastError: 'Error: SMTP said no',
      }),
    ])
    expect(JSON.stringify(data)).not.toContain('someone@example.test')
  })

  it('retries a failed job once, with all its attempts, audited; a second retry finds nothing', async () => {
    await run(sql`DELETE FROM jobs`)
    const id = await seed('mail', 'failed')
    const res = await retry(id)
    expect([res.statusCode, res.json().data]).toEqual([200, { id, kind: 'mail' }])
    const data = await jobs()
    expect(data.failed).toEqual([])
    expect(data.kinds).toEqual([{ kind: 'mail', counts: { waiting: 1, scheduled: 0, running: 0, failed: 0 } }])
    const row = (await run(sql`SELECT attempts, failed_at FROM jobs WHERE id = ${id}`)) as unknown as {
      rows: { attempts: number; failed_at: unknown }[]
    }
    expect(row.rows[0]).toEqual({ attempts: 0, failed_at: null })
    const audit = await t.app.services.auditLog.page({ targetId: String(id) }, 1, 10)
    expect(audit.items.map((r) => [r.action, r.actorId, r.targetType, r.note, r.details])).toEqual([
      ['job.retry', admin.id, 'job', 'SMTP fixed', { kind: 'mail', attemptsBefore: 16 }],
    ])

    const again = await retry(id)
    expect([again.statusCode, again.json().error]).toEqual([404, 'NOT_FOUND'])
    expect((await t.app.services.auditLog.page({ targetId: String(id) }, 1, 10)).total).toBe(1)
  })

  it('refuses a retry whose key an unfinished job holds, changing nothing; refuses a bad body or no note', async () => {
    await run(sql`DELETE FROM jobs`)
    const id = await seed('chat-purge', 'failed', 'chat-purge:x')
    await seed('chat-purge', 'scheduled', 'chat-purge:x')
    const res = await retry(id)
    expect([res.statusCode, res.json().error]).toEqual([409, 'CONFLICT'])
    expect((await jobs()).failed.map((j) => j.id)).toEqual([id])
    expect((await t.app.services.auditLog.page({ targetId: String(id) }, 1, 10)).total).toBe(0)
    const bad = await call(admin, { method: 'POST', url: '/api/admin/health/jobs/retry', payload: { id: 'x' } })
    expect(bad.statusCode).toBe(400)
    // A retry says why: without a note (or with blanks only) nothing is queued or audited.
    for (const payload of [{ id }, { id, note: '   ' }]) {
      const noNote = await call(admin, { method: 'POST', url: '/api/admin/health/jobs/retry', payload })
      expect([noNote.statusCode, noNote.json().error]).toEqual([400, 'VALIDATION_ERROR'])
    }
    expect((await jobs()).failed.map((j) => j.id)).toEqual([id])
    expect((await t.app.services.auditLog.page({ targetId: String(id) }, 1, 10)).total).toBe(0)
  })
})

describe('GET /api/admin/health/models', () => {
  it("lists the configured models with their status and today's replies, no address or key", async () => {
    const res = await call(admin, { method: 'GET', url: '/api/admin/health/models' })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.models).toEqual([
      {
        id: 'tavern-8b',
        name: 'Tavern 8B',
        host: new URL(api.baseUrl).host,
        premium: false,
        default: true,
        status: expect.any(String),
        today: { ok: 4, failed: 2 },
      },
    ])
  })
})
