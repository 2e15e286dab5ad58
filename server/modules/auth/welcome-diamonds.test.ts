import { createHash, randomBytes } from 'node:crypto'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { emailTokens } from '#db/schema/auth.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { users } from '#db/schema/users.ts'
import { linksIn, startSmtpServer } from '#tests/doubles/smtp.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

/**
 * Every new account gets its welcome diamonds once, however it signs up: Google accounts when they
 * are made, e-mail accounts when their address is proven (the verification link, or a reset link).
 */
describe('welcome diamonds for e-mail sign-ups', () => {
  let t: TestApp
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>
  let n = 0
  const password = 'a quiet lantern by the sea'

  beforeAll(async () => {
    smtp = await startSmtpServer()
    t = await buildTestApp({ env: { SMTP_URL: smtp.url } })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const next = () => {
    n += 1
    return n
  }
  // Each call from its own address, so the per-IP limits of one test do not touch another.
  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, payload, remoteAddress: `192.0.2.${next()}` })
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

  /** The token of the next mail to `email` that links to `page` (other mails, such as notices, are skipped). */
  async function linkToken(email: string, page: '/verify' | '/reset-password') {
    for (;;) {
      const link = linksIn((await smtp.waitForMail(email)).text).find((l) => l.includes(`${page}?token=`))
      if (link) return new URL(link).searchParams.get('token') ?? ''
    }
  }

  async function humanToken(): Promise<string> {
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  /** Registers through the API and returns the address and the token of its verification mail. */
  async function registered() {
    const id = `${Date.now().toString(36)}${next()}`
    const email = `welcome-${id}@example.test`
    const res = await post('/api/register', {
      username: `welcome_${id}`,
      email,
      password,
      turnstileToken: await humanToken(),
    })
    expect(res.statusCode).toBe(200)
    return { email, token: await linkToken(email, '/verify') }
  }

  async function signupGrants(email: string) {
    const [user] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    const rows = await t.database.db
      .select()
      .from(diamondLedger)
      .where(eq(diamondLedger.userId, user?.id ?? ''))
    return rows.filter((row) => row.reason === 'signup')
  }

  async function balanceAfterLogin(email: string) {
    const login = await post('/api/login', { email, password })
    expect(login.statusCode).toBe(200)
    const info = await t.app.inject({
      method: 'POST',
      url: '/api/userInfo',
      headers: { authorization: `Bearer ${login.json().data.token}` },
    })
    return info.json().data.balance
  }

  it('grants them when the address is verified, not before, and a replayed link grants nothing more', async () => {
    const { email, token } = await registered()
    expect(await signupGrants(email)).toHaveLength(0)
    expect((await post(`/api/verify?token=${token}`, {})).statusCode).toBe(200)
    expect((await post(`/api/verify?token=${token}`, {})).json().error).toBe('INVALID_TOKEN')
    expect(await balanceAfterLogin(email)).toBe(SIGNUP_GRANT_DIAMONDS)
    expect(await signupGrants(email)).toHaveLength(1)
  })

  it('grants them once when two verification links are used at the same moment', async () => {
    const { email, token } = await registered()
    // A second live link for the same account, as "resend the e-mail" would mail.
    const [user] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    const second = randomBytes(32).toString('base64url')
    await t.database.db.insert(emailTokens).values({
      userId: user?.id ?? '',
      purpose: 'verify-email',
      tokenHash: sha256(second),
      expiresAt: new Date(Date.now() + 3_600_000),
    })
    const results = await Promise.all([token, second, token, second].map((tk) => post(`/api/verify?token=${tk}`, {})))
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(2)
    expect(await balanceAfterLogin(email)).toBe(SIGNUP_GRANT_DIAMONDS)
    expect(await signupGrants(email)).toHaveLength(1)
  })

  it('grants them when a reset link proves the address of an account never verified, and not to a verified one', async () => {
    const { email } = await registered()
    const resetToken = async (address = email) => {
      expect((await post('/api/forgot-password', { email: address })).statusCode).toBe(200)
      return linkToken(address, '/reset-password')
    }
    expect((await post('/api/reset-password', { token: await resetToken(), password })).statusCode).toBe(200)
    expect(await balanceAfterLogin(email)).toBe(SIGNUP_GRANT_DIAMONDS)
    // A later reset of the same (now verified) account gives nothing more.
    expect((await post('/api/reset-password', { token: await resetToken(), password })).statusCode).toBe(200)
    expect(await signupGrants(email)).toHaveLength(1)

    // An account verified before (e.g. before welcome diamonds came to e-mail sign-ups) gets none on a reset.
    const old = await createUser(t.database.db, { emailVerifiedAt: new Date(Date.now() - 86_400_000) })
    expect((await post('/api/reset-password', { token: await resetToken(old.email), password })).statusCode).toBe(200)
    expect(await signupGrants(old.email)).toHaveLength(0)
  })
})
