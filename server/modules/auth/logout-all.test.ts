import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { TOKENS_ENDED_KEY, TOKENS_ENDED_MARK_TTL_MS } from './access-token.ts'
import { hashPassword } from './passwords.ts'

/** "Log out everywhere" (ADR 021, ASVS 3.3.1 and 3.3.3): `POST /api/logout-all`. */
describe('log out everywhere', () => {
  let t: TestApp
  const lines: string[] = []
  const password = 'a lighthouse keeper at dusk'
  let passwordHash = ''
  let ip = 0

  beforeAll(async () => {
    t = await buildTestApp({ logStream: { write: (line) => void lines.push(line) } })
    passwordHash = await hashPassword(password)
  })
  afterAll(async () => {
    await t.close()
  })

  // Each test from its own address, so the per-IP limits of one do not touch another.
  const post = (url: string, payload: object | undefined, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers, remoteAddress: `198.51.100.${ip}` })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  /** A user with a password, logged in with it: a real token pair (an access token and a login). */
  async function userWithPassword() {
    const user = await createUser(t.database.db, { passwordHash })
    return user
  }
  async function logIn(email: string): Promise<{ token: string; refreshToken: string }> {
    const res = await post('/api/login', { email, password })
    expect(res.statusCode).toBe(200)
    return res.json().data
  }
  const userInfoStatus = async (token: string) => (await post('/api/userInfo', undefined, bearer(token))).statusCode
  const refreshStatus = async (refreshToken: string) => (await post('/api/refresh', { refreshToken })).statusCode

  it('ends every login of the user at once, refresh tokens and access tokens, and a new login works', async () => {
    ip = 1
    const user = await userWithPassword()
    const phone = await logIn(user.email)
    const laptop = await logIn(user.email)
    const other = await userWithPassword()
    const otherLogin = await logIn(other.email)
    // Both access tokens work, and have been checked once (their signature check is now cached).
    expect(await userInfoStatus(phone.token)).toBe(200)
    expect(await userInfoStatus(laptop.token)).toBe(200)

    const res = await post('/api/logout-all', undefined, bearer(laptop.token))
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json().data).toEqual({ loginsEnded: 2 })

    // Neither login can be renewed...
    expect(await refreshStatus(phone.refreshToken)).toBe(401)
    expect(await refreshStatus(laptop.refreshToken)).toBe(401)
    // ...and their access tokens, the caller's own included, stop now rather than in 15 minutes.
    expect(await userInfoStatus(laptop.token)).toBe(401)
    expect(await userInfoStatus(phone.token)).toBe(401)
    expect((await post('/api/logout-all', undefined, bearer(phone.token))).statusCode).toBe(401)

    // Another user's login is untouched.
    expect(await userInfoStatus(otherLogin.token)).toBe(200)
    expect(await refreshStatus(otherLogin.refreshToken)).toBe(200)

    // Logging in again afterwards works, and the new login renews as usual.
    const fresh = await logIn(user.email)
    expect(await userInfoStatus(fresh.token)).toBe(200)
    const renewed = await post('/api/refresh', { refreshToken: fresh.refreshToken })
    expect(renewed.statusCode).toBe(200)
    expect(await userInfoStatus(renewed.json().data.token)).toBe(200)

    // Recorded for an operator, with the user and the number of logins, and no token.
    const events = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'security event' && entry.event === 'logout.all')
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ level: 40, userId: user.id, loginsEnded: 2, ip: '198.51.100.1' })
    expect(lines.filter((line) => line.includes(laptop.token) || line.includes(laptop.refreshToken))).toEqual([])
  })

  it('is refused without a valid access token', async () => {
    ip = 2
    const user = await userWithPassword()
    const session = await logIn(user.email)
    expect((await post('/api/logout-all', undefined)).statusCode).toBe(401)
    expect((await post('/api/logout-all', undefined, bearer('not-a-token'))).statusCode).toBe(401)
    // The refresh token is no access token.
    const withRefresh = await post('/api/logout-all', undefined, bearer(session.refreshToken))
    expect(withRefresh.statusCode).toBe(401)
    expect(withRefresh.json().error).toBe('UNAUTHORIZED')
    // Nothing was ended.
    expect(await userInfoStatus(session.token)).toBe(200)
    expect(await refreshStatus(session.refreshToken)).toBe(200)
  })

  it('refuses a refresh of a login that began before the mark, even if its token escaped the revocation', async () => {
    ip = 3
    const user = await userWithPassword()
    const session = await logIn(user.email)
    await sleep(2)
    // As if "log out everywhere" had set its mark and not yet revoked this login's token (a race).
    await t.kv.set(TOKENS_ENDED_KEY(user.id), String(Date.now()), TOKENS_ENDED_MARK_TTL_MS)
    expect(await refreshStatus(session.refreshToken)).toBe(401)
    expect(await userInfoStatus(session.token)).toBe(401)
    // The login is ended for good, not just this once.
    await t.kv.delete(TOKENS_ENDED_KEY(user.id))
    expect(await refreshStatus(session.refreshToken)).toBe(401)
  })

  it('is limited per user, with Retry-After', async () => {
    ip = 4
    const user = await createUser(t.database.db)
    for (let attempt = 0; attempt < 5; attempt++) {
      await sleep(2)
      const token = await t.app.accessTokens.issue({ userId: user.id })
      expect((await post('/api/logout-all', undefined, bearer(token))).statusCode).toBe(200)
    }
    await sleep(2)
    const token = await t.app.accessTokens.issue({ userId: user.id })
    const limited = await post('/api/logout-all', undefined, bearer(token))
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
  })
})
