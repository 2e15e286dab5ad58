import { afterEach, describe, expect, it, vi } from 'vitest'
import { ACCESS_TOKEN_TTL_SECONDS, createAccessTokens } from './access-token.ts'

const SECRET = 's'.repeat(48)

afterEach(() => {
  vi.useRealTimers()
})

describe('access tokens', () => {
  it('verifies a token again and again, and refuses it from the second it expires', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-21T12:00:00Z'), toFake: ['Date'] })
    const tokens = createAccessTokens(SECRET)
    const token = await tokens.issue({ userId: 'user-1' })
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1' })
    vi.setSystemTime(new Date(Date.now() + (ACCESS_TOKEN_TTL_SECONDS - 1) * 1000))
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1' })
    vi.setSystemTime(new Date(Date.now() + 1000))
    expect(await tokens.verify(token)).toBeNull()
    expect(await tokens.verify(token)).toBeNull()
  })

  it('refuses forged, altered and foreign tokens, also once the genuine one was verified', async () => {
    const tokens = createAccessTokens(SECRET)
    const token = await tokens.issue({ userId: 'user-1' })
    expect(await tokens.verify(token)).toEqual({ userId: 'user-1' })
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
})
