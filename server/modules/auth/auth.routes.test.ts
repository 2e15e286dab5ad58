import { createHash } from 'node:crypto'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { emailTokens, refreshTokens } from '#db/schema/auth.ts'
import { jobs } from '#db/schema/jobs.ts'
import { users } from '#db/schema/users.ts'
import de from '#locales/de/email.json' with { type: 'json' }
import en from '#locales/en/email.json' with { type: 'json' }
import { REFRESH_REUSE_GRACE_MS } from '#server/modules/auth/refresh-grace.ts'
import { formatMailDate } from '#server/modules/mail/account-mail.ts'
import { linksIn, startSmtpServer } from '#tests/doubles/smtp.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('accounts API', () => {
  let t: TestApp
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>
  let n = 0
  const unique = () => {
    n += 1
    return `${Date.now().toString(36)}${n}`
  }

  /** Solves a real challenge from the server, as the browser widget does. */
  async function humanToken(): Promise<string> {
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  const post = (url: string, payload: unknown, ip = '203.0.113.7') =>
    t.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: ip })

  async function register(fields: Partial<{ username: string; email: string; password: string }> = {}, ip?: string) {
    const id = unique()
    const body = {
      username: `reader_${id}`,
      email: `reader-${id}@example.test`,
      password: 'a quiet lantern by the sea',
      turnstileToken: await humanToken(),
      ...fields,
    }
    return { body, res: await post('/api/register', body, ip ?? `198.51.100.${n % 250}`) }
  }

  async function userId(email: string) {
    const [row] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    return row?.id
  }

  function tokenIn(text: string, page: string) {
    const link = linksIn(text).find((l) => l.includes(`${page}?token=`))
    expect(link, `${page} link`).toBeTruthy()
    return new URL(link ?? '').searchParams.get('token') ?? ''
  }

  async function verifyLinkFor(email: string) {
    return tokenIn((await smtp.waitForMail(email)).text, '/verify')
  }

  async function registeredAndVerified() {
    const { body } = await register()
    const token = await verifyLinkFor(body.email)
    expect((await post(`/api/verify?token=${token}`, {})).statusCode).toBe(200)
    return body
  }

  const HOUR = 3_600_000
  const DAY = 24 * HOUR
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

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

  it('registers, mails a verification link, verifies once, then logs in', async () => {
    const { body, res } = await register()
    expect(res.statusCode).toBe(200)
    expect(res.json().data.message).toBe('Registration successful, please check your email to verify your account.')

    const mail = await smtp.waitForMail(body.email)
    expect(mail.html).toContain('https://taleweave.example/verify?token=')
    const token = tokenIn(mail.text, '/verify')

    const early = await post('/api/login', { email: body.email, password: body.password })
    expect(early.statusCode).toBe(403)
    expect(early.json().error).toBe('EMAIL_NOT_VERIFIED')

    expect((await post(`/api/verify?token=${token}`, {})).statusCode).toBe(200)
    const again = await post(`/api/verify?token=${token}`, {})
    expect(again.statusCode).toBe(400)
    expect(again.json().error).toBe('INVALID_TOKEN')

    // E-mail addresses compare without regard to case.
    const login = await post('/api/login', {
      email: body.email.toUpperCase(),
      password: body.password,
      rememberMe: true,
    })
    expect(login.statusCode).toBe(200)
    const { token: access, refreshToken } = login.json().data
    expect(access).toMatch(/^ey/)
    expect(refreshToken.length).toBeGreaterThan(30)

    const info = await t.app.inject({
      method: 'POST',
      url: '/api/userInfo',
      headers: { authorization: `Bearer ${access}` },
    })
    expect(info.json().data).toEqual({
      username: body.username,
      email: body.email,
      avatar: '/default-avatar.svg',
      // The welcome diamonds came with the verification (ADR 022).
      balance: SIGNUP_GRANT_DIAMONDS,
      showAdultContent: false,
    })
    expect((await t.app.inject({ method: 'POST', url: '/api/userInfo' })).statusCode).toBe(401)
  })

  it('mails a verification link in the language the person registered in', async () => {
    const id = unique()
    const email = `jp-${id}@example.test`
    await post('/api/register', {
      username: `yuki_${id}`,
      email,
      password: 'sakura under a winter moon',
      turnstileToken: await humanToken(),
      locale: 'ja',
    })
    const mail = await smtp.waitForMail(email)
    expect(mail.text).toContain('https://taleweave.example/ja/verify?token=')
    expect(mail.subject).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/)
  })

  it('does not reveal that an address is registered, and tells its owner by mail instead', async () => {
    const owner = await registeredAndVerified()
    const before = smtp.messages.length
    const { res } = await register({ email: owner.email.toUpperCase() })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.message).toBe('Registration successful, please check your email to verify your account.')
    const notice = await smtp.waitForMail(owner.email)
    expect(smtp.messages.length).toBeGreaterThan(before)
    expect(notice.text).toContain('/reset-password?token=')
    const rows = await t.database.db.select().from(users).where(eq(users.email, owner.email))
    expect(rows).toHaveLength(1)
  })

  it('requires a solved, unused human verification', async () => {
    const id = unique()
    const base = { username: `bot_${id}`, email: `bot-${id}@example.test`, password: 'a quiet lantern by the sea' }
    for (const turnstileToken of ['garbage', Buffer.from('{"challenge":1}').toString('base64')]) {
      const res = await post('/api/register', { ...base, turnstileToken })
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toBe('VERIFICATION_FAILED')
    }
    const missing = await post('/api/register', base)
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error).toBe('VALIDATION_ERROR')

    const token = await humanToken()
    expect((await post('/api/register', { ...base, turnstileToken: token })).statusCode).toBe(200)
    const replay = await post('/api/register', {
      ...base,
      email: `other-${id}@example.test`,
      username: `bot2_${id}`,
      turnstileToken: token,
    })
    expect(replay.statusCode).toBe(400)
    expect(replay.json()).toMatchObject({ error: 'VERIFICATION_FAILED', details: { reason: 'already used' } })
  })

  it('takes a solved challenge once, however its token is re-encoded', async () => {
    const token = await humanToken()
    const solved = JSON.parse(Buffer.from(token, 'base64').toString('utf8'))
    const encode = (value: unknown, space?: number) =>
      Buffer.from(JSON.stringify(value, null, space)).toString('base64')
    const reencoded = [
      token,
      encode(solved, 2), // the same JSON, spaced out
      encode({ solution: solved.solution, challenge: solved.challenge }), // keys in another order
      `${encode(solved)}====${Buffer.from('junk').toString('base64')}`, // junk after the base64
      Buffer.from(JSON.stringify(solved)).toString('base64url'), // the URL-safe alphabet
    ]
    const answers: unknown[] = []
    for (const [i, turnstileToken] of reencoded.entries()) {
      const id = unique()
      const res = await post(
        '/api/register',
        {
          username: `replay_${id}`,
          email: `replay-${id}@example.test`,
          password: 'a quiet lantern by the sea',
          turnstileToken,
        },
        `198.18.0.${i + 1}`,
      )
      answers.push(res.statusCode === 200 ? 'accepted' : res.json().details?.reason)
    }
    expect(answers).toEqual(['accepted', 'already used', 'already used', 'already used', 'already used'])
  })

  it('refuses short and common passwords, bad usernames and taken usernames with clear errors', async () => {
    for (const password of ['short', 'password1', 'iloveyou']) {
      const { res } = await register({ password })
      expect(res.statusCode, password).toBe(400)
      expect(res.json().error, password).toBe('WEAK_PASSWORD')
    }
    for (const username of ['ab', 'has space', '<script>', 'x'.repeat(33)]) {
      const { res } = await register({ username })
      expect(res.statusCode, username).toBe(400)
      expect(res.json().error, username).toBe('VALIDATION_ERROR')
    }
    const first = await register()
    const { res } = await register({ username: first.body.username.toUpperCase() })
    expect(res.statusCode).toBe(409)
    expect(res.json().error).toBe('USERNAME_TAKEN')
  })

  it('answers a wrong password and an unknown address alike', async () => {
    const user = await registeredAndVerified()
    const wrong = await post('/api/login', { email: user.email, password: 'not the password at all' }, '192.0.2.10')
    const unknown = await post(
      '/api/login',
      { email: `nobody-${unique()}@example.test`, password: 'whatever it is' },
      '192.0.2.10',
    )
    expect(wrong.statusCode).toBe(401)
    expect(unknown.statusCode).toBe(401)
    expect(wrong.json()).toEqual(unknown.json())
    expect(wrong.json().error).toBe('INVALID_CREDENTIALS')
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

  it('resets a password through a single-use link and ends every login', async () => {
    const user = await registeredAndVerified()
    const session = (await post('/api/login', { email: user.email, password: user.password })).json().data
    const before = smtp.messages.length
    expect((await post('/api/forgot-password', { email: user.email })).statusCode).toBe(200)
    // Unknown addresses get the same answer.
    expect((await post('/api/forgot-password', { email: `nobody-${unique()}@example.test` })).statusCode).toBe(200)
    await expect.poll(() => smtp.messages.length).toBeGreaterThan(before)
    const mail = smtp.messages.filter((m) => m.to.includes(user.email)).at(-1)
    const link = linksIn(mail?.text ?? '').find((l) => l.includes('/reset-password?token='))
    const token = new URL(link ?? 'http://x').searchParams.get('token') ?? ''

    expect((await post('/api/reset-password', { token, password: 'password1' })).json().error).toBe('WEAK_PASSWORD')
    const reset = await post('/api/reset-password', { token, password: 'a brand new evening tide' })
    expect(reset.statusCode).toBe(200)
    expect((await post('/api/reset-password', { token, password: 'another new evening tide' })).json().error).toBe(
      'INVALID_TOKEN',
    )

    expect((await post('/api/refresh', { refreshToken: session.refreshToken })).statusCode).toBe(401)
    expect((await post('/api/login', { email: user.email, password: user.password })).statusCode).toBe(401)
    expect((await post('/api/login', { email: user.email, password: 'a brand new evening tide' })).statusCode).toBe(200)
  })

  it('tells the owner by mail, in their language, that their password was changed, with no link that logs in', async () => {
    const id = unique()
    const email = `ute-${id}@example.test`
    const password = 'eine ruhige Nacht am Fluss'
    await post('/api/register', {
      username: `ute_${id}`,
      email,
      password,
      turnstileToken: await humanToken(),
      locale: 'de',
    })
    expect((await post(`/api/verify?token=${await verifyLinkFor(email)}`, {})).statusCode).toBe(200)
    expect((await post('/api/forgot-password', { email })).statusCode).toBe(200)
    const token = tokenIn((await smtp.waitForMail(email)).text, '/reset-password')
    const newPassword = 'ein ganz neuer Abendwind'
    const before = Date.now()
    expect((await post('/api/reset-password', { token, password: newPassword })).statusCode).toBe(200)

    const notice = await smtp.waitForMail(email)
    expect(notice.subject).toBe(de.passwordChanged.subject)
    expect(notice.text).toContain(de.passwordChanged.ifNotYou)
    // When, in German, in UTC: the minute of the reset (or the next one, if it just turned).
    const when = [before, before + 60_000].map((ms) => formatMailDate('de', new Date(ms)))
    expect(
      when.some((w) => notice.text.includes(w)),
      `${notice.text} has one of ${when}`,
    ).toBe(true)
    // The only link is the German forgot-password page: nothing that logs in, no token, no secret.
    expect(new Set(linksIn(notice.text))).toEqual(new Set(['https://taleweave.example/de/forgot-password']))
    expect(new Set(linksIn(notice.html))).toEqual(new Set(['https://taleweave.example/de/forgot-password']))
    for (const secret of [token, newPassword, password, 'token=', 'refresh']) expect(notice.raw).not.toContain(secret)
    const [account] = await t.database.db.select().from(users).where(eq(users.email, email))
    expect(notice.raw).not.toContain(account?.passwordHash ?? '$argon2')
  })

  it('sends no "password changed" mail when a reset is refused: expired, used or made-up links, weak passwords', async () => {
    const user = await registeredAndVerified()
    const notices = () =>
      smtp.messages.filter((m) => m.to.includes(user.email.toLowerCase()) && m.subject === en.passwordChanged.subject)
    const queued = async () =>
      (
        await t.database.db
          .select({ id: jobs.id })
          .from(jobs)
          .where(
            and(
              eq(jobs.kind, 'security-mail'),
              sql`${jobs.payload}->>'userId' = ${String((await userId(user.email)) ?? '')}`,
            ),
          )
      ).length
    const resetLink = async () => {
      expect((await post('/api/forgot-password', { email: user.email })).statusCode).toBe(200)
      return tokenIn((await smtp.waitForMail(user.email)).text, '/reset-password')
    }

    const expired = await resetLink()
    await t.database.db
      .update(emailTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(emailTokens.tokenHash, sha256(expired)))
    expect(
      (await post('/api/reset-password', { token: expired, password: 'a brand new evening tide' })).json().error,
    ).toBe('INVALID_TOKEN')
    expect(
      (await post('/api/reset-password', { token: 'made-up', password: 'a brand new evening tide' })).json().error,
    ).toBe('INVALID_TOKEN')
    const fresh = await resetLink()
    expect((await post('/api/reset-password', { token: fresh, password: 'password1' })).json().error).toBe(
      'WEAK_PASSWORD',
    )
    expect(await queued()).toBe(0)
    // Nothing changed: the old password still works.
    expect((await post('/api/login', { email: user.email, password: user.password })).statusCode).toBe(200)

    // The link that was refused for a weak password still works, once, and sends exactly one notice.
    expect((await post('/api/reset-password', { token: fresh, password: 'a brand new evening tide' })).statusCode).toBe(
      200,
    )
    expect(
      (await post('/api/reset-password', { token: fresh, password: 'another new evening tide' })).json().error,
    ).toBe('INVALID_TOKEN')
    const notice = await smtp.waitForMail(user.email)
    expect(notice.subject).toBe(en.passwordChanged.subject)
    await expect.poll(queued).toBe(0)
    expect(notices()).toHaveLength(1)
  })

  it('refuses expired links', async () => {
    const { body } = await register()
    const token = await verifyLinkFor(body.email)
    await t.database.db.update(emailTokens).set({ expiresAt: new Date(Date.now() - 1000) })
    const res = await post(`/api/verify?token=${token}`, {})
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toBe('INVALID_TOKEN')
  })

  it('limits resending to once a minute per address, with Retry-After', async () => {
    const { body } = await register()
    await smtp.waitForMail(body.email)
    const first = await post('/api/resend-email', { email: body.email })
    expect(first.statusCode).toBe(200)
    const second = await post('/api/resend-email', { email: body.email })
    expect(second.statusCode).toBe(429)
    expect(second.json().error).toBe('RATE_LIMITED')
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0)
    expect(Number(second.headers['retry-after'])).toBeLessThanOrEqual(60)
  })
})
