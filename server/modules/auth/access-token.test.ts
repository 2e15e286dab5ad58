import { SignJWT } from 'jose'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ACCESS_TOKEN_TTL_SECONDS, createAccessTokens, endedByMark } from './access-token.ts'

const SECRET = 's'.repeat(48)

afterEach(() => {
  vi.useRealTimers()
})

describe('access tokens', () => {
  it('verifies a token again and again, and refuses it from the second it expires', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-21T12:00:00Z'), toFake: ['Date'] })
    const tokens = createAccessTokens(SECRET)
    const token = await tokens.issue({ userId: 'user-1' })
    const issuedAtMs = Date.parse('2026-11-21T12:00:00Z')
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1', issuedAtMs })
    vi.setSystemTime(new Date(Date.now() + (ACCESS_TOKEN_TTL_SECONDS - 1) * 1000))
    // From the cache: the same claims, the issue time included.
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1', issuedAtMs })
    vi.setSystemTime(new Date(Date.now() + 1000))
    expect(await tokens.verify(token)).toBeNull()
    expect(await tokens.verify(token)).toBeNull()
  })

  it('refuses forged, altered and foreign tokens, also once the genuine one was verified', async () => {
    const tokens = createAccessTokens(SECRET)
    const token = await tokens.issue({ userId: 'user-1' })
    expect(await tokens.verify(token)).toMatchObject({ userId: 'user-1' })
    const [header, payload, signature = ''] = token.split('.')
    const altered = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
    expect(await tokens.verify(altered)).toBeNull()
    const foreign = await createAccessTokens('o'.repeat(48)).issue({ userId: 'user-1' })
    expect(await tokens.verify(foreign)).toBeNull()
    const otherUser = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...otherUser, sub: 'user-2' })).toString('base64url')}.${signature}`
    expect(await tokens.verify(forged)).toBeNull()
    expect(await tokens.verify('not a token')).toBeNull()
  })

  it('carries the issue time to the millisecond, so "log out everywhere" can tell tokens within one second apart', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-21T12:00:00.250Z'), toFake: ['Date'] })
    const tokens = createAccessTokens(SECRET)
    const before = await tokens.issue({ userId: 'user-1' })
    const mark = String(Date.now())
    vi.setSystemTime(new Date('2026-11-21T12:00:00.900Z'))
    const after = await tokens.issue({ userId: 'user-1' })
    const early = await tokens.verify(before)
    const late = await tokens.verify(after)
    expect(early?.issuedAtMs).toBe(Date.parse('2026-11-21T12:00:00.250Z'))
    expect(late?.issuedAtMs).toBe(Date.parse('2026-11-21T12:00:00.900Z'))
    expect(endedByMark(early?.issuedAtMs ?? 0, mark)).toBe(true)
    expect(endedByMark(late?.issuedAtMs ?? 0, mark)).toBe(false)
    expect(endedByMark(early?.issuedAtMs ?? 0, null)).toBe(false)
  })

  /** A token signed with the right key and claims, except for what `shape` leaves out or changes. */
  async function signed(shape: (jwt: SignJWT, nowSeconds: number) => SignJWT) {
    const now = Math.floor(Date.now() / 1000)
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('user-1')
      .setIssuer('taleweave')
      .setAudience('taleweave-api')
    return shape(jwt, now).sign(new TextEncoder().encode(SECRET))
  }

  it('refuses a token without an expiry, an issue time or a subject, and one that claims to live longer than an access token', async () => {
    const tokens = createAccessTokens(SECRET)
    // The genuine shape passes, so the refusals below are for the missing or stretched claim alone.
    const genuine = await signed((jwt, now) => jwt.setIssuedAt(now).setExpirationTime(now + 60))
    expect(await tokens.verify(genuine)).toMatchObject({ userId: 'user-1' })

    expect(await tokens.verify(await signed((jwt, now) => jwt.setIssuedAt(now)))).toBeNull()
    expect(await tokens.verify(await signed((jwt, now) => jwt.setExpirationTime(now + 60)))).toBeNull()
    const noSubject = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('taleweave')
      .setAudience('taleweave-api')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(SECRET))
    expect(await tokens.verify(noSubject)).toBeNull()

    // Issued an hour ago with a year to run: older than an access token may be, so refused.
    const stretched = await signed((jwt, now) => jwt.setIssuedAt(now - 3600).setExpirationTime(now + 365 * 86_400))
    expect(await tokens.verify(stretched)).toBeNull()
    // Issued just now with a year to run: it works, but only for an access token's lifetime.
    vi.useFakeTimers({ now: new Date('2026-11-21T12:00:00Z'), toFake: ['Date'] })
    const longLived = await signed((jwt, now) => jwt.setIssuedAt(now).setExpirationTime(now + 365 * 86_400))
    expect(await tokens.verify(longLived)).toMatchObject({ userId: 'user-1' })
    vi.setSystemTime(new Date(Date.now() + ACCESS_TOKEN_TTL_SECONDS * 1000))
    expect(await tokens.verify(longLived)).toBeNull()
  })

  it('accepts a token issued a moment "in the future" by an instance whose clock runs slightly ahead', async () => {
    const tokens = createAccessTokens(SECRET)
    const ahead = await signed((jwt, now) =>
      jwt.setIssuedAt(now + 2).setExpirationTime(now + 2 + ACCESS_TOKEN_TTL_SECONDS),
    )
    expect(await tokens.verify(ahead)).toMatchObject({ userId: 'user-1' })
    const farAhead = await signed((jwt, now) => jwt.setIssuedAt(now + 600).setExpirationTime(now + 660))
    expect(await tokens.verify(farAhead)).toBeNull()
  })
})
