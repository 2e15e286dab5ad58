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
