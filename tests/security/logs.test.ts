import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { refreshTokens } from '#db/schema/auth.ts'
import { redactUrl } from '#server/lib/log-redaction.ts'
import { createMailer } from '#server/modules/mail/mailer.ts'
import { linksIn, type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

/**
 * ASVS 7.1.1 and 7.2: the log holds no password, token or one-time link secret, whatever the
 * account calls that ran; and failed logins, reused refresh tokens and password resets are logged
 * as security events.
 */

const lines: string[] = []
let smtp: SmtpDouble
let t: TestApp

beforeAll(async () => {
  smtp = await startSmtpServer()
  t = await buildTestApp({
    env: { SMTP_URL: `${smtp.url}?pool=false`, PUBLIC_URL: 'https://taleweave.example' },
    logStream: { write: (line) => void lines.push(line) },
    jobQueue: { pollMs: 50 },
  })
})
afterAll(async () => {
  await t?.close()
  await smtp?.close()
})

const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload, headers, remoteAddress: '203.0.113.99' })

function tokenIn(text: string, page: string): string {
  const link = linksIn(text).find((l) => l.includes(`${page}?token=`)) ?? ''
  return new URL(link).searchParams.get('token') ?? ''
}

describe('the log', () => {
  it('keeps no password, token or link secret, and records security events', async () => {
    const email = `logged-${Date.now()}@example.test`
    const password = 'Lanterns-Glow-9137-on-the-cliff'
    const wrongPassword = 'Wrong-Guess-5521-by-the-sea'
    const newPassword = 'Storm-Passes-7780-over-the-bay'
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    const turnstileToken = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
    expect(
      (await post('/api/register', { username: `logged_${Date.now() % 1e6}`, email, password, turnstileToken }))
        .statusCode,
    ).toBe(200)

    const verifyToken = tokenIn((await smtp.waitForMail(email)).text, '/verify')
    expect((await post(`/api/verify?token=${verifyToken}`, {})).statusCode).toBe(200)
    expect((await post('/api/login', { email, password: wrongPassword })).statusCode).toBe(401)
    const login = (await post('/api/login', { email, password })).json().data
    const refreshed = (await post('/api/refresh', { refreshToken: login.refreshToken })).json().data
    // Past the grace for sibling requests (ADR 026), the first refresh token again is reuse: the
    // whole family is revoked.
    await t.database.db
      .update(refreshTokens)
      .set({ usedAt: new Date(Date.now() - 60_000) })
      .where(eq(refreshTokens.tokenHash, createHash('sha256').update(login.refreshToken).digest('hex')))
    expect((await post('/api/refresh', { refreshToken: login.refreshToken })).statusCode).toBe(401)
    const me = await post('/api/userInfo', {}, { authorization: `Bearer ${login.token}` })
    expect(me.statusCode).toBe(200)

    const mailsBefore = smtp.messages.length
    expect((await post('/api/forgot-password', { email })).statusCode).toBe(200)
    await expect.poll(() => smtp.messages.length).toBeGreaterThan(mailsBefore)
    const resetToken = tokenIn(smtp.messages.at(-1)?.text ?? '', '/reset-password')
    expect((await post('/api/reset-password', { token: resetToken, password: newPassword })).statusCode).toBe(200)

    const secrets = {
      password,
      wrongPassword,
      newPassword,
      verifyToken,
      resetToken,
      accessToken: login.token,
      refreshToken: login.refreshToken,
      refreshed: refreshed.refreshToken,
      newAccess: refreshed.token,
      turnstileToken,
    }
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8)
      expect(
        lines.filter((line) => line.includes(secret)),
        `${name} in the log`,
      ).toEqual([])
    }

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    // The request was logged, with the token's value replaced.
    expect(entries.some((e) => (e.req as { url?: string } | undefined)?.url === '/api/verify?token=[redacted]')).toBe(
      true,
    )
    const events = entries.filter((e) => e.msg === 'security event')
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['login.failed', 'refresh.reused', 'password.reset']),
    )
    expect(events.find((e) => e.event === 'login.failed')).toMatchObject({ level: 40, ip: '203.0.113.99', known: true })
    expect(JSON.stringify(events)).not.toContain(email)
  })

  it("records a signed-in user refused another user's chat or character as a security event, with the ids asked for", async () => {
    const owner = await t.login()
    const prober = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Owned', creatorId: owner.user.id })
    const created = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, owner)
    const sessionId = created.json().data.id as string
    const before = lines.length

    const messages = await t.injectWithLogin({ method: 'POST', url: '/api/messages', payload: { sessionId } }, prober)
    expect(messages.statusCode).toBe(404)
    const removal = await t.injectWithLogin({ method: 'DELETE', url: `/api/roles/${roleId}` }, prober)
    expect(removal.statusCode).toBe(403)
    // The owner's own reads are not events.
    expect(
      (await t.injectWithLogin({ method: 'POST', url: '/api/messages', payload: { sessionId } }, owner)).statusCode,
    ).toBe(200)

    const events = lines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.msg === 'security event')
    expect(events).toEqual([
      expect.objectContaining({
        level: 40,
        event: 'access.refused',
        userId: prober.user.id,
        route: 'POST /api/messages',
        status: 404,
        ids: { sessionId },
      }),
      expect.objectContaining({
        event: 'access.refused',
        userId: prober.user.id,
        route: 'DELETE /api/roles/:id',
        status: 403,
        ids: { id: roleId },
      }),
    ])
    expect(JSON.stringify(events)).not.toContain(prober.token)
  })

  it('redacts secret query parameters and keeps the rest', () => {
    expect(redactUrl('/api/verify?token=abc.def&lang=fr')).toBe('/api/verify?token=[redacted]&lang=fr')
    expect(redactUrl('/auth/callback?code=xyz&state=s1&Code=again')).toBe(
      '/auth/callback?code=[redacted]&state=[redacted]&Code=[redacted]',
    )
    expect(redactUrl('/characters?page=2&sort=new')).toBe('/characters?page=2&sort=new')
    expect(redactUrl('/x?%74oken=abc')).toBe('/x?%74oken=[redacted]')
    expect(redactUrl('/x?token')).toBe('/x?token')
    expect(redactUrl('/plain')).toBe('/plain')
  })

  it('the outbox lists the links of a mail in development, never in production', async () => {
    const logged: Record<string, unknown>[] = []
    const outboxDir = mkdtempSync(path.join(tmpdir(), 'rp-outbox-'))
    const mail = { to: 'a@example.test', subject: 's', text: 'Open https://x.test/verify?token=secret123', html: '' }
    for (const logLinks of [true, false]) {
      const mailer = createMailer({
        smtpUrl: undefined,
        from: 'a@example.test',
        outboxDir,
        logLinks,
        log: (info) => void logged.push(info),
      })
      await mailer.send(mail)
      await mailer.close()
    }
    expect(logged[0]?.links).toEqual(['https://x.test/verify?token=secret123'])
    expect(JSON.stringify(logged[1])).not.toContain('secret123')
  })
})
