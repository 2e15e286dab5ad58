import { createHash } from 'node:crypto'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emailTokens, refreshTokens } from '#db/schema/auth.ts'
import { users } from '#db/schema/users.ts'
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
      balance: 0,
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

    // The first token is presented again: someone copied it.
    const stolen = await post('/api/refresh', { refreshToken: first.refreshToken })
    expect(stolen.statusCode).toBe(401)
    // ...so the legitimate newer token of the same login stops working too.
    expect((await post('/api/refresh', { refreshToken: pair.refreshToken })).statusCode).toBe(401)

    // Another login of the same account is not affected.
    const other = (await post('/api/login', { email: user.email, password: user.password })).json().data
    expect((await post('/api/refresh', { refreshToken: other.refreshToken })).statusCode).toBe(200)
    expect((await post('/api/refresh', { refreshToken: 'made-up' })).statusCode).toBe(401)
  })

  it('lets "remember me" decide how long a login lasts', async () => {
    const user = await registeredAndVerified()
    const expiryOf = async (rememberMe: boolean) => {
      const pair = (await post('/api/login', { email: user.email, password: user.password, rememberMe })).json().data
      const [row] = await t.database.db
        .select({ expiresAt: refreshTokens.expiresAt })
        .from(refreshTokens)
        .where(eq(refreshTokens.tokenHash, createHash('sha256').update(pair.refreshToken).digest('hex')))
      return ((row?.expiresAt.getTime() ?? 0) - Date.now()) / 3_600_000
    }
    expect(await expiryOf(false)).toBeCloseTo(24, 0)
    expect(await expiryOf(true)).toBeCloseTo(30 * 24, 0)
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

  it('limits login attempts per account, whatever the IP', async () => {
    const user = await registeredAndVerified()
    const codes: number[] = []
    for (let i = 0; i < 12; i++) {
      codes.push(
        (await post('/api/login', { email: user.email, password: 'wrong password here' }, `192.0.2.${100 + i}`))
          .statusCode,
      )
    }
    expect(codes.slice(0, 10).every((c) => c === 401)).toBe(true)
    expect(codes.slice(10)).toEqual([429, 429])
    // Even the right password waits now: the limit protects the account from guessing.
    expect((await post('/api/login', { email: user.email, password: user.password }, '192.0.2.250')).statusCode).toBe(
      429,
    )
  })
})
