import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diamondHolds } from '#db/schema/diamonds.ts'
import { users } from '#db/schema/users.ts'
import { createDiamondsRepo } from '#server/modules/diamonds/diamonds.repo.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('plans and diamonds', () => {
  let t: TestApp
  const cronSecret = 'cron-secret-for-tests-123'
  beforeAll(async () => {
    t = await buildTestApp({ env: { CRON_SECRET: cronSecret } })
  })
  afterAll(() => t.close())

  const repo = () => createDiamondsRepo(t.database.db)
  const credit = (userId: string, amount: number) =>
    repo().apply({ userId, amount, reason: 'test', reference: `test:${randomUUID()}` })

  it('lists the plans of config/plans.json with the yearly savings computed', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/plan' })
    expect(res.statusCode).toBe(200)
    const plans = res.json().data.plans as {
      planId: string
      yearlySavingsPercent: number
      free: boolean
      bestValue: boolean
    }[]
    expect(plans.map((p) => p.planId)).toEqual(['free', 'plus', 'pro', 'ultra'])
    expect(plans.find((p) => p.planId === 'plus')?.yearlySavingsPercent).toBe(20)
    expect(plans.find((p) => p.planId === 'pro')?.yearlySavingsPercent).toBe(25)
    expect(plans.filter((p) => p.free)).toHaveLength(1)
    expect(plans.filter((p) => p.bestValue).map((p) => p.planId)).toEqual(['pro'])
  })

  it('gives every new account its welcome diamonds once, shown by /api/points and /api/userInfo', async () => {
    const session = await t.login()
    await t.app.services.diamonds.grantSignup(session.user.id)
    await t.app.services.diamonds.grantSignup(session.user.id)
    const points = await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)
    expect(points.json().data).toEqual({ totalPoints: 50 })
    const info = await t.injectWithLogin({ method: 'POST', url: '/api/userInfo' }, session)
    expect(info.json().data.balance).toBe(50)
    expect((await t.app.inject({ method: 'GET', url: '/api/points' })).statusCode).toBe(401)
  })

  it('50 parallel spends of a balance that covers 10 succeed exactly 10 times', async () => {
    const user = await createUser(t.database.db)
    await credit(user.id, 10)
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => t.app.services.diamonds.spend(user.id, 1, `spend:${user.id}:${i}`, 'test')),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10)
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
    expect(refused).toHaveLength(40)
    for (const r of refused) expect(r.reason).toMatchObject({ status: 402, code: 'INSUFFICIENT_DIAMONDS' })
    expect(await repo().balanceOf(user.id)).toBe(0)
    expect(await repo().ledgerSum(user.id)).toBe(0)
  })

  it('counts each reference once, however often it is retried', async () => {
    const user = await createUser(t.database.db)
    await credit(user.id, 5)
    const reference = `chat:${randomUUID()}`
    const first = await t.app.services.diamonds.spend(user.id, 2, reference, 'chat')
    const again = await t.app.services.diamonds.spend(user.id, 2, reference, 'chat')
    expect(first.applied).toBe(true)
    expect(again.applied).toBe(false)
    expect(await repo().balanceOf(user.id)).toBe(3)
  })

  it('spends together with the caller’s own write: a rollback takes the spend back', async () => {
    const user = await createUser(t.database.db)
    await credit(user.id, 5)
    await expect(
      t.database.db.transaction(async (tx) => {
        await t.app.services.diamonds.spend(user.id, 4, `chat:${randomUUID()}`, 'chat', tx)
        throw new Error('the reply could not be stored')
      }),
    ).rejects.toThrow('the reply could not be stored')
    expect(await repo().balanceOf(user.id)).toBe(5)
    expect(await repo().ledgerSum(user.id)).toBe(5)
  })

  it('holds: 50 parallel holds of a balance that covers 10 succeed 10 times; each ends once, settled or refunded', async () => {
    const user = await createUser(t.database.db)
    await credit(user.id, 10)
    const diamonds = t.app.services.diamonds
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => diamonds.hold(user.id, 1, 'chat')))
    const held = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value)
    expect(held).toHaveLength(10)
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
    for (const r of refused) {
      expect(r.reason).toMatchObject({ status: 402, code: 'INSUFFICIENT_DIAMONDS', details: { needed: 1 } })
    }
    expect(await repo().balanceOf(user.id)).toBe(0)
    expect(await repo().ledgerSum(user.id)).toBe(0)

    const [settled, refunded, both] = held
    if (!settled || !refunded || !both) throw new Error('holds missing')
    // Settled: the hold's diamonds come back and the caller spends them, in one transaction.
    await t.database.db.transaction(async (tx) => {
      expect(await diamonds.settleHold(settled, tx)).toBe(true)
      await diamonds.spend(user.id, 1, `chat:${randomUUID()}`, 'chat', tx)
    })
    expect(await diamonds.refundHold(settled)).toBe(false)
    expect(await diamonds.refundHold(refunded)).toBe(true)
    expect(await diamonds.refundHold(refunded)).toBe(false)
    // Refunded and settled at the same time: only one of them ends it.
    const raced = await Promise.all([
      diamonds.refundHold(both),
      t.database.db.transaction((tx) => diamonds.settleHold(both, tx)),
    ])
    expect(raced.filter(Boolean)).toHaveLength(1)
    expect(await repo().balanceOf(user.id)).toBe(2)
    expect(await repo().ledgerSum(user.id)).toBe(2)
  })

  it('refunds only the holds left open past the deadline, once, on any number of runs', async () => {
    const user = await createUser(t.database.db)
    await credit(user.id, 20)
    const diamonds = t.app.services.diamonds
    const stale = await diamonds.hold(user.id, 5, 'chat')
    const live = await diamonds.hold(user.id, 7, 'chat')
    await t.database.db
      .update(diamondHolds)
      .set({ createdAt: new Date(Date.now() - 60_000) })
      .where(eq(diamondHolds.id, stale))
    const deadline = new Date(Date.now() - 30_000)
    const runs = await Promise.all([diamonds.refundStaleHolds(deadline), diamonds.refundStaleHolds(deadline)])
    expect(runs.reduce((a, b) => a + b, 0)).toBe(1)
    expect(await diamonds.refundStaleHolds(deadline)).toBe(0)
    expect(await repo().balanceOf(user.id)).toBe(13)
    expect(await repo().ledgerSum(user.id)).toBe(13)
    const open = await t.database.db.select().from(diamondHolds).where(eq(diamondHolds.userId, user.id))
    expect(open.map((h) => h.id)).toEqual([live])
  })

  it('awards the free plan’s monthly diamonds to verified accounts once per month', async () => {
    const verified = await createUser(t.database.db)
    const unverified = await createUser(t.database.db, { emailVerifiedAt: null })
    const november = new Date('2031-11-15T12:00:00Z')
    const first = await t.app.services.diamonds.awardMonthly(november)
    expect(first.period).toBe('2031-11')
    expect(first.awarded).toBeGreaterThan(0)
    expect(await repo().balanceOf(verified.id)).toBe(30)
    expect(await repo().balanceOf(unverified.id)).toBe(0)
    expect((await t.app.services.diamonds.awardMonthly(november)).awarded).toBe(0)
    expect(await repo().balanceOf(verified.id)).toBe(30)
    await t.app.services.diamonds.awardMonthly(new Date('2031-12-01T00:00:00Z'))
    expect(await repo().balanceOf(verified.id)).toBe(60)
    expect(await repo().ledgerSum(verified.id)).toBe(60)
    // An account verified later joins the next award.
    await t.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, unverified.id))
    await t.app.services.diamonds.awardMonthly(new Date('2031-12-20T00:00:00Z'))
    expect(await repo().balanceOf(unverified.id)).toBe(30)
  })

  it('runs the award from the cron call only with the right secret', async () => {
    const url = '/api/cron/award-monthly-points'
    expect((await t.app.inject({ method: 'POST', url })).statusCode).toBe(401)
    expect(
      (await t.app.inject({ method: 'POST', url, headers: { authorization: 'Bearer wrong-secret-value-12' } }))
        .statusCode,
    ).toBe(401)
    const ok = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${cronSecret}` } })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().data.period).toMatch(/^\d{4}-\d{2}$/)
    const again = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${cronSecret}` } })
    expect(again.json().data.awarded).toBe(0)
  })
})

describe('the cron call without CRON_SECRET', () => {
  it('does not exist', async () => {
    const t = await buildTestApp()
    try {
      expect((await t.app.inject({ method: 'POST', url: '/api/cron/award-monthly-points' })).statusCode).toBe(404)
    } finally {
      await t.close()
    }
  })
})
