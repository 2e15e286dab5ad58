import { describe, expect, it } from 'vitest'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { limitedUser, ownRoutes, privately, signedInUser } from '#server/lib/signed-in.ts'

describe('the signed-in user route preambles', () => {
  it('reads the user, and refuses a request without one with 401 (never an empty id)', () => {
    expect(signedInUser({ userId: 'u1' })).toBe('u1')
    for (const userId of [null, undefined, '']) {
      expect(() => signedInUser({ userId })).toThrow(expect.objectContaining({ status: 401, code: 'UNAUTHORIZED' }))
    }
  })

  it('counts a change per user and key, refusing the one over the limit with 429', async () => {
    const kv = openKeyValueStore(undefined, 'test:signed-in:')
    try {
      const limit = { max: 2, windowMs: 60_000 }
      expect(await limitedUser(kv, { userId: 'a' }, 'thing-change', limit)).toBe('a')
      expect(await limitedUser(kv, { userId: 'a' }, 'thing-change', limit)).toBe('a')
      await expect(limitedUser(kv, { userId: 'a' }, 'thing-change', limit)).rejects.toMatchObject({ status: 429 })
      // Another user, or another key, has a count of its own.
      expect(await limitedUser(kv, { userId: 'b' }, 'thing-change', limit)).toBe('b')
      expect(await limitedUser(kv, { userId: 'a' }, 'other-change', limit)).toBe('a')
      expect(await kv.get('rate:thing-change:a')).toBe('3')
      await expect(limitedUser(kv, { userId: null }, 'thing-change', limit)).rejects.toMatchObject({ status: 401 })
    } finally {
      await kv.close()
    }
  })

  it("makes a route's options: the user's token checked first, documented under the tag", () => {
    const requireUser = async () => {}
    const mine = ownRoutes({ requireUser }, 'lorebooks')
    expect(mine('My books', { body: 1 })).toEqual({
      preHandler: requireUser,
      schema: { tags: ['lorebooks'], summary: 'My books', body: 1 },
    })
  })

  it('keeps what a user reads of their own out of shared caches', () => {
    const headers: Record<string, string> = {}
    privately({ header: (name: string, value: string) => (headers[name] = value) })
    expect(headers).toEqual({ 'cache-control': 'private, no-store' })
  })
})
