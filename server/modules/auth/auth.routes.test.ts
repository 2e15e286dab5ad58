import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { emailTokens } from '#db/schema/auth.ts'
import { jobs } from '#db/schema/jobs.ts'
import { users } from '#db/schema/users.ts'
import de from '#locales/de/email.json' with { type: 'json' }
import en from '#locales/en/email.json' with { type: 'json' }
import { formatMailDate } from '#server/modules/mail/account-mail.ts'
import { linksIn, type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { accountsApi, sha256 } from '#tests/helpers/accounts.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Registration, verification, login and password reset through the API; the life of a login
// (refresh, deadlines, logout) is in sessions.routes.test.ts.
describe('accounts API', () => {
  let t: TestApp
  let smtp: SmtpDouble
  const { unique, humanToken, post, register, userId, tokenIn, verifyLinkFor, registeredAndVerified } = accountsApi(
    () => ({ t, smtp }),
  )

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

  it('mails in the language the person chose later, not the one they registered in', async () => {
    const person = await registeredAndVerified()
    const login = await post('/api/login', { email: person.email, password: person.password })
    const { token } = login.json().data
    // A page load in Japanese after choosing it in the language selector.
    const info = await t.app.inject({
      method: 'POST',
      url: '/api/userInfo',
      headers: { authorization: `Bearer ${token}`, cookie: 'lang=ja' },
    })
    expect(info.statusCode).toBe(200)
    expect((await post('/api/forgot-password', { email: person.email })).statusCode).toBe(200)
    const mail = await smtp.waitForMail(person.email)
    expect(mail.text).toContain('https://taleweave.example/ja/reset-password?token=')
    expect(mail.subject).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/)
    // A cookie that is not a locale changes nothing.
    await t.app.inject({
      method: 'POST',
      url: '/api/userInfo',
      headers: { authorization: `Bearer ${token}`, cookie: 'lang=xx' },
    })
    const [row] = await t.database.db.select({ locale: users.locale }).from(users).where(eq(users.email, person.email))
    expect(row?.locale).toBe('ja')
  })

  const localeOf = async (email: string) =>
    (await t.database.db.select({ locale: users.locale }).from(users).where(eq(users.email, email)))[0]?.locale

  it('mails in the language the person last logged in in', async () => {
    const person = await registeredAndVerified()
    expect(await localeOf(person.email)).toBe('en')
    // The login page in German says so in the body.
    const login = await post('/api/login', { email: person.email, password: person.password, locale: 'de' })
    expect(login.statusCode).toBe(200)
    expect((await post('/api/forgot-password', { email: person.email })).statusCode).toBe(200)
    const mail = await smtp.waitForMail(person.email)
    expect(mail.subject).toBe(de.resetPassword.subject)
    expect(mail.text).toContain('https://taleweave.example/de/reset-password?token=')

    const withCookie = (locale: string | undefined, cookie: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { email: person.email, password: person.password, ...(locale ? { locale } : {}) },
        headers: { cookie },
      })
    // Without one, the language selector's cookie.
    expect((await withCookie(undefined, 'lang=fr')).statusCode).toBe(200)
    expect(await localeOf(person.email)).toBe('fr')
    // A body that names no locale does not win over a cookie that does.
    expect((await withCookie('xx', 'lang=ja')).statusCode).toBe(200)
    expect(await localeOf(person.email)).toBe('ja')
    // A wrong password changes nothing.
    const wrong = await post('/api/login', { email: person.email, password: 'not the password', locale: 'ko' })
    expect(wrong.statusCode).toBe(401)
    expect(await localeOf(person.email)).toBe('ja')
  })

  it('sends the verification link again in the language of a login before the address was proven', async () => {
    const { body } = await register()
    await smtp.waitForMail(body.email)
    const early = await post('/api/login', { email: body.email, password: body.password, locale: 'fr' })
    expect(early.json().error).toBe('EMAIL_NOT_VERIFIED')
    expect((await post('/api/resend-email', { email: body.email })).statusCode).toBe(200)
    const mail = await smtp.waitForMail(body.email)
    expect(mail.text).toContain('https://taleweave.example/fr/verify?token=')
    expect(await localeOf(body.email)).toBe('fr')
  })

  it("stores the language a signed-in person picks in the language selector as their mails' language", async () => {
    const person = await registeredAndVerified()
    const { token } = (await post('/api/login', { email: person.email, password: person.password })).json().data
    const choose = (locale: string, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/locale',
        payload: { locale },
        headers: authorization ? { authorization } : {},
      })
    const chosen = await choose('ar', `Bearer ${token}`)
    expect(chosen.statusCode).toBe(200)
    expect(chosen.json().data).toEqual({ locale: 'ar' })
    expect((await post('/api/forgot-password', { email: person.email })).statusCode).toBe(200)
    const mail = await smtp.waitForMail(person.email)
    expect(mail.text).toContain('https://taleweave.example/ar/reset-password?token=')
    expect(mail.html).toContain('dir="rtl"')
    // Not a locale: refused, and nothing changes; nobody signed in: refused.
    expect((await choose('xx', `Bearer ${token}`)).statusCode).toBe(400)
    expect((await choose('de')).statusCode).toBe(401)
    expect(await localeOf(person.email)).toBe('ar')
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
