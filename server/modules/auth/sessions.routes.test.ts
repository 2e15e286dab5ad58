import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshTokens } from '#db/schema/auth.ts'
import { REFRESH_REUSE_GRACE_MS } from '#server/modules/auth/refresh-grace.ts'
import { type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { accountsApi, sha256 } from '#tests/helpers/accounts.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// The life of a login through the API (ADR 008, 019, 026): rotation, reuse, the grace for sibling
// tabs, the idle and lifetime deadlines, logout. Moved out of auth.routes.test.ts unchanged.
describe('accounts API: logins', () => {
  let t: TestApp
  let smtp: SmtpDouble
  const { post, registeredAndVerified } = accountsApi(() => ({ t, smtp }))

  const HOUR = 3_600_000
  const DAY = 24 * HOUR

  /** Moves the moment a refresh token was used back by `ms`. */
  async function usedAgo(refreshToken: string, ms: number) {
    await t.database.db
      .update(refreshTokens)
      .set({ usedAt: new Date(Date.now() - ms) })
      .where(eq(refreshTokens.tokenHash, sha256(refreshToken)))
  }

  /**
   * Moves a login `ms` into the past, as if that much time had gone by since its sign-in and its
   * last refresh: the family's start and every deadline move back together.
   */
  async function age(refreshToken: string, ms: number) {
    const [row] = await t.database.db
      .select({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(refreshToken)))
    expect(row, 'the login').toBeTruthy()
    const back = sql`${ms} * interval '1 millisecond'`
    await t.database.db
      .update(refreshTokens)
      .set({
        familyStartedAt: sql`${refreshTokens.familyStartedAt} - ${back}`,
        expiresAt: sql`${refreshTokens.expiresAt} - ${back}`,
        createdAt: sql`${refreshTokens.createdAt} - ${back}`,
      })
      .where(eq(refreshTokens.familyId, row?.familyId ?? ''))
  }

  /** Refreshes and returns the status and the new refresh token (or the old one when refused). */
  async function refreshed(refreshToken: string) {
    const res = await post('/api/refresh', { refreshToken })
    return {
      status: res.statusCode,
      error: res.json().error,
      refreshToken: res.json().data?.refreshToken ?? refreshToken,
    }
  }

  beforeAll(async () => {
    smtp = await startSmtpServer()
    t = await buildTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://taleweave.example' } })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  it('rotates refresh tokens, and a reused one revokes its whole family', async () => {
    const user = await registeredAndVerified()
    const first = (await post('/api/login', { email: user.email, password: user.password })).json().data
    const second = await post('/api/refresh', { refreshToken: first.refreshToken })
    expect(second.statusCode).toBe(200)
    const pair = second.json().data
    expect(pair.refreshToken).not.toBe(first.refreshToken)

    // The first token is presented again, past the grace for sibling requests: someone copied it.
    await usedAgo(first.refreshToken, REFRESH_REUSE_GRACE_MS + 1000)
    const stolen = await post('/api/refresh', { refreshToken: first.refreshToken })
    expect(stolen.statusCode).toBe(401)
    // ...so the legitimate newer token of the same login stops working too.
    expect((await post('/api/refresh', { refreshToken: pair.refreshToken })).statusCode).toBe(401)

    // Another login of the same account is not affected.
    const other = (await post('/api/login', { email: user.email, password: user.password })).json().data
    expect((await post('/api/refresh', { refreshToken: other.refreshToken })).statusCode).toBe(200)
    expect((await post('/api/refresh', { refreshToken: 'made-up' })).statusCode).toBe(401)
  })

  it('lets two tabs refreshing together both stay logged in, within a short grace (ADR 026)', async () => {
    const user = await registeredAndVerified()
    const first = (await post('/api/login', { email: user.email, password: user.password })).json().data
    // Both tabs send the same token at the same moment.
    const [one, two] = await Promise.all([
      post('/api/refresh', { refreshToken: first.refreshToken }),
      post('/api/refresh', { refreshToken: first.refreshToken }),
    ])
    expect([one.statusCode, two.statusCode]).toEqual([200, 200])
    // One tab a moment after the other rotated it.
    await usedAgo(first.refreshToken, REFRESH_REUSE_GRACE_MS - 5000)
    const three = await post('/api/refresh', { refreshToken: first.refreshToken })
    expect(three.statusCode).toBe(200)
    const pairs = [one, two, three].map((res) => res.json().data as { token: string; refreshToken: string })
    expect(new Set(pairs.map((pair) => pair.refreshToken)).size).toBe(3)
    // Each got a working pair of the same login, and the login goes on.
    for (const pair of pairs) {
      const me = await t.app.inject({
        method: 'POST',
        url: '/api/userInfo',
        headers: { authorization: `Bearer ${pair.token}` },
      })
      expect(me.statusCode).toBe(200)
    }
    const next = await post('/api/refresh', { refreshToken: pairs[0]?.refreshToken })
    expect(next.statusCode).toBe(200)
    const familyOf = async (refreshToken: string) =>
      (
        await t.database.db
          .select({ familyId: refreshTokens.familyId, revokedAt: refreshTokens.revokedAt })
          .from(refreshTokens)
          .where(eq(refreshTokens.tokenHash, sha256(refreshToken)))
      )[0]
    const family = await familyOf(first.refreshToken)
    for (const pair of pairs) expect(await familyOf(pair.refreshToken)).toEqual(family)
    expect(family?.revokedAt).toBeNull()

    // After the grace the same token is a copy: the whole login ends, the siblings' pairs too.
    await usedAgo(first.refreshToken, REFRESH_REUSE_GRACE_MS + 1000)
    expect((await post('/api/refresh', { refreshToken: first.refreshToken })).statusCode).toBe(401)
    expect((await post('/api/refresh', { refreshToken: pairs[1]?.refreshToken })).statusCode).toBe(401)
    expect((await post('/api/refresh', { refreshToken: next.json().data.refreshToken })).statusCode).toBe(401)
    // A revoked token gets no grace, however recently it was used.
    await usedAgo(first.refreshToken, 0)
    expect((await post('/api/refresh', { refreshToken: first.refreshToken })).statusCode).toBe(401)
  })

  it('lets "remember me" decide how long a login lasts and how long it may go unused', async () => {
    const user = await registeredAndVerified()
    const deadlinesOf = async (rememberMe: boolean) => {
      const pair = (await post('/api/login', { email: user.email, password: user.password, rememberMe })).json().data
      const [row] = await t.database.db
        .select({ expiresAt: refreshTokens.expiresAt, startedAt: refreshTokens.familyStartedAt })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, sha256(pair.refreshToken)))
      return {
        idleHours: ((row?.expiresAt.getTime() ?? 0) - Date.now()) / HOUR,
        startedSecondsAgo: (Date.now() - (row?.startedAt.getTime() ?? 0)) / 1000,
      }
    }
    const session = await deadlinesOf(false)
    expect(session.idleHours).toBeCloseTo(2, 1)
    expect(session.startedSecondsAgo).toBeLessThan(60)
    expect((await deadlinesOf(true)).idleHours).toBeCloseTo(7 * 24, 1)
  })

  it('ends a login that goes unused: 7 days with "remember me", 2 hours without; each refresh moves the deadline', async () => {
    const user = await registeredAndVerified()
    const login = async (rememberMe: boolean) =>
      (await post('/api/login', { email: user.email, password: user.password, rememberMe })).json().data
        .refreshToken as string

    let remembered = await login(true)
    await age(remembered, 7 * DAY - HOUR)
    let step = await refreshed(remembered)
    expect(step.status).toBe(200)
    remembered = step.refreshToken
    // Used a day ago: another six days of rest are fine...
    await age(remembered, 7 * DAY - HOUR)
    step = await refreshed(remembered)
    expect(step.status).toBe(200)
    // ...but not seven.
    await age(step.refreshToken, 7 * DAY + 60_000)
    const idle = await refreshed(step.refreshToken)
    expect(idle).toMatchObject({ status: 401, error: 'UNAUTHORIZED' })

    const session = await login(false)
    await age(session, 2 * HOUR - 60_000)
    step = await refreshed(session)
    expect(step.status).toBe(200)
    await age(step.refreshToken, 2 * HOUR + 60_000)
    // Refused like an expired login (401): the browser clears its tokens and goes to the login page.
    expect(await refreshed(step.refreshToken)).toMatchObject({ status: 401, error: 'UNAUTHORIZED' })
    // A new login is a new start.
    expect((await refreshed(await login(false))).status).toBe(200)
  })

  it('ends a login 30 days (1 day without "remember me") after sign-in, however often it is refreshed', async () => {
    const user = await registeredAndVerified()
    const login = async (rememberMe: boolean) =>
      (await post('/api/login', { email: user.email, password: user.password, rememberMe })).json().data
        .refreshToken as string

    // Refreshed every 6 days, never idle for long: fine on days 6, 12, 18 and 24...
    let token = await login(true)
    for (let day = 6; day <= 24; day += 6) {
      await age(token, 6 * DAY)
      const step = await refreshed(token)
      expect(step.status, `day ${day}`).toBe(200)
      token = step.refreshToken
    }
    // ...and rotating did not move the end: the token of day 24 lasts until day 30, not day 31.
    const [row] = await t.database.db
      .select({ expiresAt: refreshTokens.expiresAt, startedAt: refreshTokens.familyStartedAt })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(token)))
    expect(((row?.expiresAt.getTime() ?? 0) - (row?.startedAt.getTime() ?? 0)) / DAY).toBeCloseTo(30, 3)
    await age(token, 6 * DAY)
    expect(await refreshed(token)).toMatchObject({ status: 401, error: 'UNAUTHORIZED' })

    // Without "remember me": refreshed every 110 minutes, it still ends 24 hours after sign-in.
    token = await login(false)
    let minutes = 0
    for (;;) {
      await age(token, 110 * 60_000)
      minutes += 110
      const step = await refreshed(token)
      if (step.status !== 200) {
        expect(step).toMatchObject({ status: 401, error: 'UNAUTHORIZED' })
        break
      }
      token = step.refreshToken
    }
    expect(minutes).toBe(14 * 110)
    expect(minutes - 110).toBeLessThan(24 * 60)
    expect(minutes).toBeGreaterThan(24 * 60)
  })

  it('ends a login whose start lies further back than the lifetime, whatever its token says', async () => {
    // A token issued under a longer lifetime (or a row changed by hand) stops at the current end.
    const user = await registeredAndVerified()
    const pair = (await post('/api/login', { email: user.email, password: user.password, rememberMe: true })).json()
      .data
    await t.database.db
      .update(refreshTokens)
      .set({ familyStartedAt: new Date(Date.now() - 30 * DAY - 60_000) })
      .where(eq(refreshTokens.tokenHash, sha256(pair.refreshToken)))
    expect((await refreshed(pair.refreshToken)).status).toBe(401)
  })

  it('logs out by revoking the refresh token', async () => {
    const user = await registeredAndVerified()
    const pair = (await post('/api/login', { email: user.email, password: user.password })).json().data
    expect((await post('/api/logout', { refreshToken: pair.refreshToken })).statusCode).toBe(200)
    expect((await post('/api/refresh', { refreshToken: pair.refreshToken })).statusCode).toBe(401)
  })
})
