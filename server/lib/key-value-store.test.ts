import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { type KeyValueStore, openKeyValueStore } from '#server/lib/key-value-store.ts'

const backends: [string, string | undefined][] = [['memory', undefined]]
if (process.env.TEST_REDIS_URL) backends.push(['redis', process.env.TEST_REDIS_URL])

describe.each(backends)('key-value store (%s)', (_name, url) => {
  const store: KeyValueStore = openKeyValueStore(url, `test:${randomBytes(6).toString('hex')}:`)
  afterAll(() => store.close())

  it('stores values until they expire', async () => {
    await store.set('a', 'one', 60_000)
    expect(await store.get('a')).toBe('one')
    await store.set('short', 'x', 30)
    await new Promise((r) => setTimeout(r, 80))
    expect(await store.get('short')).toBeNull()
    await store.delete('a')
    expect(await store.get('a')).toBeNull()
  })

  it('sets a value only once across callers', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => store.setIfAbsent('once', 'me', 60_000)))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it('counts hits in a window that starts at the first hit', async () => {
    const counts = await Promise.all(Array.from({ length: 25 }, () => store.increment('hits', 60_000)))
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    for (const c of counts) {
      expect(c.ttlMs).toBeGreaterThan(0)
      expect(c.ttlMs).toBeLessThanOrEqual(60_000)
    }
    await store.increment('window', 40)
    await new Promise((r) => setTimeout(r, 80))
    expect((await store.increment('window', 40)).count).toBe(1)
  })

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined()
  })
})

describe('in-process key-value store bound', () => {
  it('drops the oldest cache values past its bound, and never a value set without `cache`', async () => {
    const store = openKeyValueStore(undefined, 'rp:', { cacheChars: 100 })
    try {
      await store.set('marker', 'x'.repeat(500), 60_000)
      await store.increment('rate:someone', 60_000)
      for (let i = 0; i < 5; i++) await store.set(`cache:${i}`, 'v'.repeat(30), 60_000, { cache: true })
      // Each cache entry holds 7 + 30 characters: two fit in 100, the three oldest are gone.
      expect(await store.get('cache:0')).toBeNull()
      expect(await store.get('cache:2')).toBeNull()
      expect(await store.get('cache:3')).toBe('v'.repeat(30))
      expect(await store.get('cache:4')).toBe('v'.repeat(30))
      expect(await store.get('marker')).toBe('x'.repeat(500))
      expect((await store.increment('rate:someone', 60_000)).count).toBe(2)
      // Overwriting an entry counts its new size only, and deleting frees its room.
      await store.set('cache:4', 'w'.repeat(30), 60_000, { cache: true })
      expect(await store.get('cache:3')).toBe('v'.repeat(30))
      await store.delete('cache:3')
      await store.set('cache:5', 'u'.repeat(30), 60_000, { cache: true })
      expect(await store.get('cache:4')).toBe('w'.repeat(30))
      expect(await store.get('cache:5')).toBe('u'.repeat(30))
      // A value set again without `cache` is no longer the cache's to drop.
      await store.set('cache:4', 'kept', 60_000)
      for (let i = 6; i < 10; i++) await store.set(`cache:${i}`, 'v'.repeat(30), 60_000, { cache: true })
      expect(await store.get('cache:4')).toBe('kept')
      expect(await store.get('cache:5')).toBeNull()
    } finally {
      await store.close()
    }
  })
})
