import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linksIn, startSmtpServer } from '#tests/doubles/smtp.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { hashPassword } from './passwords.ts'

/** A password reset ends everything that let anyone in before it (ASVS 2.5, 3.3.1). */
describe('password reset', () => {
  let t: TestApp
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>
  let ip = 0
  const password = 'an old harbour in the fog'

  beforeAll(async () => {
    smtp = await startSmtpServer()
    t = await buildTestApp({ env: { SMTP_URL: smtp.url } })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const post = (url: string, payload: object | undefined, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers, remoteAddress: `198.51.100.${ip}` })
  const userInfoStatus = async (token: string) =>
    (await post('/api/userInfo', undefined, { authorization: `Bearer ${token}` })).statusCode

  async function resetLink(email: string) {
    expect((await post('/api/forgot-password', { email })).statusCode).toBe(200)
    for (;;) {
      const link = linksIn((await smtp.waitForMail(email)).text).find((l) => l.includes('/reset-password?token='))
      if (link) return new URL(link).searchParams.get('token') ?? ''
    }
  }

  it('ends every access token issued before it, at once, and every other reset link still open', async () => {
    ip = 1
    const user = await createUser(t.database.db, { passwordHash: await hashPassword(password) })
    const login = await post('/api/login', { email: user.email, password })
    expect(login.statusCode).toBe(200)
    const { token } = login.json().data
    expect(await userInfoStatus(token)).toBe(200)
    // Two links in the mailbox: say the older was read by someone else.
    const older = await resetLink(user.email)
    const newer = await resetLink(user.email)

    const newPassword = 'a new lighthouse at dawn'
    expect((await post('/api/reset-password', { token: newer, password: newPassword })).statusCode).toBe(200)

    // The access token handed out before the reset no longer counts (its signature check was cached).
    expect(await userInfoStatus(token)).toBe(401)
    // The older link cannot set the password again.
    const replay = await post('/api/reset-password', { token: older, password: 'the intruder sets this one' })
    expect(replay.statusCode).toBe(400)
    expect(replay.json().error).toBe('INVALID_TOKEN')
    expect((await post('/api/login', { email: user.email, password: 'the intruder sets this one' })).statusCode).toBe(
      401,
    )
    // A login after the reset works, with the new password.
    const after = await post('/api/login', { email: user.email, password: newPassword })
    expect(after.statusCode).toBe(200)
    expect(await userInfoStatus(after.json().data.token)).toBe(200)
  })

  it('leaves other accounts alone, and a refused reset ends nothing', async () => {
    ip = 2
    const user = await createUser(t.database.db, { passwordHash: await hashPassword(password) })
    const other = await createUser(t.database.db, { passwordHash: await hashPassword(password) })
    const mine = (await post('/api/login', { email: user.email, password })).json().data.token
    const theirs = (await post('/api/login', { email: other.email, password })).json().data.token
    const link = await resetLink(user.email)

    const made = await post('/api/reset-password', { token: 'made-up', password: 'a new lighthouse at dawn' })
    expect(made.json().error).toBe('INVALID_TOKEN')
    expect((await post('/api/reset-password', { token: link, password: 'password1' })).json().error).toBe(
      'WEAK_PASSWORD',
    )
    expect(await userInfoStatus(mine)).toBe(200)

    expect((await post('/api/reset-password', { token: link, password: 'a new lighthouse at dawn' })).statusCode).toBe(
      200,
    )
    expect(await userInfoStatus(mine)).toBe(401)
    expect(await userInfoStatus(theirs)).toBe(200)
  })
})
