import { randomUUID } from 'node:crypto'
import { and, eq, like } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emailTokens, refreshTokens } from '#db/schema/auth.ts'
import { diamondHolds, diamondLedger } from '#db/schema/diamonds.ts'
import { jobs } from '#db/schema/jobs.ts'
import { users } from '#db/schema/users.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

/** The product's own jobs (ADR 017) going through the queue: summaries, awards, account mails. */

const SUMMARY = 'MEMORY: the keeper lit the lamp and the traveller stayed the night.'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let api: OpenAiApiDouble
let smtp: SmtpDouble
let t: TestApp

beforeAll(async () => {
  api = await startOpenAiApi({ reply: (_messages, body) => (body.stream ? 'A reply.' : SUMMARY) })
  smtp = await startSmtpServer()
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({
    env: { MODELS_FILE: modelsFile, SMTP_URL: `${smtp.url}?pool=false` },
    jobQueue: { pollMs: 50, retryDelayMs: () => 100 },
  })
})
afterAll(async () => {
  await t.close()
  await api.close()
  await smtp.close()
})

const pending = () => t.database.db.select().from(jobs)
/** The jobs still in the table, described so a failure shows which one stayed and why. */
const leftOver = async () =>
  (await pending()).map((job) => ({ kind: job.kind, attempts: job.attempts, lastError: job.lastError }))

describe('background jobs', () => {
  it('a memory summary whose model call fails is retried by its job and then stored', async () => {
    const { user, token } = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Keeper' })
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/createSession',
      headers: { authorization: `Bearer ${token}` },
      payload: { roleId },
    })
    const sessionId = created.json().data.id as string
    const ids = await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 6 }, (_, i) => ({
        author: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `Message ${i + 1}`,
      })),
    )
    const before = api.requests.length
    api.fail(500)
    await t.app.services.jobs.enqueue(
      'chat-summary',
      { sessionId, userId: user.id, keptFromId: ids[4] ?? 0 },
      { key: `summary:${sessionId}` },
    )
    const memory = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/session/memory',
          headers: { authorization: `Bearer ${token}` },
          payload: { sessionId },
        })
      ).json().data
    await expect.poll(memory, { timeout: 10_000 }).toMatchObject({ note: SUMMARY })
    // The failed call and the retry that succeeded.
    expect(api.requests.slice(before).filter((r) => !r.stream)).toHaveLength(2)
    expect(api.pendingFaults).toEqual([])
    await expect.poll(leftOver, { timeout: 10_000 }).toEqual([])
  })

  it('the monthly award queued by two instances for the same hour runs once and credits each account once', async () => {
    const verified = await t.login({ emailVerifiedAt: new Date() })
    const key = 'monthly-award:2026-11-21T10'
    const queued = await Promise.all([
      t.app.services.jobs.enqueue('monthly-award', {}, { key }),
      t.app.services.jobs.enqueue('monthly-award', {}, { key }),
    ])
    expect(queued.filter(Boolean)).toHaveLength(1)
    await expect
      .poll(async () =>
        (
          await t.database.db
            .select()
            .from(diamondLedger)
            .where(and(eq(diamondLedger.userId, verified.user.id), like(diamondLedger.reference, 'monthly:%')))
        ).map((row) => row.amount),
      )
      .toEqual([30])
    // A later hour's job finds the month credited already.
    await t.app.services.jobs.enqueue('monthly-award', {}, { key: 'monthly-award:2026-11-21T11' })
    await expect.poll(leftOver, { timeout: 10_000 }).toEqual([])
    const monthly = await t.database.db
      .select()
      .from(diamondLedger)
      .where(and(eq(diamondLedger.userId, verified.user.id), like(diamondLedger.reference, 'monthly:%')))
    expect(monthly).toHaveLength(1)
  })

  it('an account mail for an account deleted or verified meanwhile is not sent', async () => {
    const { user: gone } = await t.login({ emailVerifiedAt: null })
    const { user: verified } = await t.login({ emailVerifiedAt: new Date() })
    const { user: waiting } = await t.login({ emailVerifiedAt: null })
    await t.database.db.delete(users).where(eq(users.id, gone.id))
    for (const u of [gone, verified, waiting]) {
      await t.app.services.jobs.enqueue('account-mail', { userId: u.id, kind: 'verify-email', purpose: 'verify-email' })
    }
    await smtp.waitForMail(waiting.email)
    await expect.poll(leftOver, { timeout: 10_000 }).toEqual([])
    await sleep(100)
    const to = smtp.messages.flatMap((m) => m.to)
    expect(to).toContain(waiting.email)
    expect(to).not.toContain(gone.email)
    expect(to).not.toContain(verified.email)
  })

  it('the hourly job deletes sign-in tokens and e-mail links that expired or were used up, and nothing live', async () => {
    const { user } = await t.login()
    const hour = 3_600_000
    const now = Date.now()
    const token = (name: string, values: { expiresInMs: number; usedAt?: Date; revokedAt?: Date }) => ({
      userId: user.id,
      familyId: randomUUID(),
      tokenHash: `hash-${name}`,
      familyStartedAt: new Date(now - hour),
      expiresAt: new Date(now + values.expiresInMs),
      usedAt: values.usedAt ?? null,
      revokedAt: values.revokedAt ?? null,
    })
    await t.database.db.insert(refreshTokens).values([
      token('live', { expiresInMs: hour }),
      // Rotated but not yet expired: kept, so presenting it again is caught as reuse.
      token('rotated', { expiresInMs: hour, usedAt: new Date() }),
      token('expired', { expiresInMs: -1000 }),
      token('logged-out', { expiresInMs: hour, revokedAt: new Date() }),
    ])
    const link = (name: string, expiresInMs: number, usedAt: Date | null = null) => ({
      userId: user.id,
      purpose: 'verify-email' as const,
      tokenHash: `link-${name}`,
      expiresAt: new Date(now + expiresInMs),
      usedAt,
    })
    await t.database.db
      .insert(emailTokens)
      .values([link('live', hour), link('expired', -1000), link('used', hour, new Date())])

    await t.app.services.jobs.enqueue('expired-tokens', {}, { key: 'expired-tokens:2026-11-22T10' })
    await expect.poll(leftOver).toEqual([])
    const refreshLeft = await t.database.db
      .select({ hash: refreshTokens.tokenHash })
      .from(refreshTokens)
      .where(eq(refreshTokens.userId, user.id))
    expect(refreshLeft.map((row) => row.hash).sort()).toEqual(['hash-live', 'hash-rotated'])
    const linksLeft = await t.database.db
      .select({ hash: emailTokens.tokenHash })
      .from(emailTokens)
      .where(eq(emailTokens.userId, user.id))
    expect(linksLeft.map((row) => row.hash)).toEqual(['link-live'])
  })

  it('refunds the diamond hold of a reply whose process died, once it is past the deadline, and no other', async () => {
    const { user } = await t.login()
    await t.app.services.diamonds.grantSignup(user.id)
    const { diamonds, chat } = t.app.services
    // What a premium reply holds while it is written; its process is killed before it settles or refunds.
    const orphan = await diamonds.hold(user.id, 5, 'chat')
    // A reply still being written elsewhere: younger than the deadline, left alone.
    const live = await diamonds.hold(user.id, 7, 'chat')
    await t.app.services.jobs.enqueue('stale-holds', {}, { key: 'stale-holds:test-young' })
    await expect.poll(leftOver).toEqual([])
    expect(await diamonds.balanceOf(user.id)).toBe(50 - 5 - 7)

    await t.database.db
      .update(diamondHolds)
      .set({ createdAt: new Date(Date.now() - chat.holdDeadlineMs - 1000) })
      .where(eq(diamondHolds.id, orphan))
    await t.app.services.jobs.enqueue('stale-holds', {}, { key: 'stale-holds:test-old' })
    await expect.poll(leftOver).toEqual([])
    expect(await diamonds.balanceOf(user.id)).toBe(50 - 7)
    const ledger = await t.database.db
      .select({ amount: diamondLedger.amount, reason: diamondLedger.reason, reference: diamondLedger.reference })
      .from(diamondLedger)
      .where(eq(diamondLedger.userId, user.id))
      .orderBy(diamondLedger.id)
    expect(ledger).toEqual([
      { amount: 50, reason: 'signup', reference: `signup:${user.id}` },
      { amount: -5, reason: 'hold', reference: `chat-hold:${orphan}` },
      { amount: -7, reason: 'hold', reference: `chat-hold:${live}` },
      { amount: 5, reason: 'refund', reference: `chat-hold-end:${orphan}` },
    ])
    expect(ledger.reduce((sum, row) => sum + row.amount, 0)).toBe(await diamonds.balanceOf(user.id))
    const open = await t.database.db
      .select({ id: diamondHolds.id })
      .from(diamondHolds)
      .where(eq(diamondHolds.userId, user.id))
    expect(open).toEqual([{ id: live }])
  })

  it('counts waiting and failed jobs per kind in the Prometheus metrics', async () => {
    await t.database.db.insert(jobs).values([
      {
        kind: 'mail',
        payload: {},
        maxAttempts: 16,
        leaseMs: 1000,
        attempts: 16,
        failedAt: new Date(),
        lastError: '550',
      },
      { kind: 'mail', payload: {}, maxAttempts: 16, leaseMs: 1000, runAt: new Date(Date.now() + 3_600_000) },
    ])
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.body).toContain('jobs{kind="mail",state="failed"} 1')
    expect(res.body).toContain('jobs{kind="mail",state="pending"} 1')
    await t.database.db.delete(jobs)
  })
})
