import { Redis } from 'ioredis'

/**
 * Short-lived shared state: caches, counters for rate limits, one-time markers.
 * In-process by default; Redis when REDIS_URL is set, so several instances see the same values.
 */
export type KeyValueStore = {
  readonly kind: 'memory' | 'redis'
  get(key: string): Promise<string | null>
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** Sets only when absent; true when this call set it. For once-only work across instances. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>
  /** Adds 1 and returns the new count and the time left; the window starts at the first hit. */
  increment(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>
  delete(key: string): Promise<void>
  ping(): Promise<void>
  close(): Promise<void>
}

export function openKeyValueStore(redisUrl: string | undefined, prefix = 'rp:'): KeyValueStore {
  return redisUrl ? redisStore(redisUrl, prefix) : memoryStore()
}

function memoryStore(): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>()
  const live = (key: string) => {
    const entry = entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  // Expired entries are also swept in the background so an idle key does not stay forever.
  const sweeper = setInterval(() => {
    const now = Date.now()
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key)
  }, 60_000)
  sweeper.unref()
  return {
    kind: 'memory',
    async get(key) {
      return live(key)?.value ?? null
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: Date.now() + ttlMs })
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false
      entries.set(key, { value, expiresAt: Date.now() + ttlMs })
      return true
    },
    async increment(key, windowMs) {
      const entry = live(key)
      if (!entry) {
        entries.set(key, { value: '1', expiresAt: Date.now() + windowMs })
        return { count: 1, ttlMs: windowMs }
      }
      const count = Number(entry.value) + 1
      entry.value = String(count)
      return { count, ttlMs: entry.expiresAt - Date.now() }
    },
    async delete(key) {
      entries.delete(key)
    },
    async ping() {},
    async close() {
      clearInterval(sweeper)
      entries.clear()
    },
  }
}

function redisStore(url: string, prefix: string): KeyValueStore {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
    enableOfflineQueue: true,
    lazyConnect: false,
  })
  // Connection errors surface on the calls that need Redis (and on /readyz); they must not crash.
  redis.on('error', () => {})
  return {
    kind: 'redis',
    async get(key) {
      return redis.get(key)
    },
    async set(key, value, ttlMs) {
      await redis.set(key, value, 'PX', ttlMs)
    },
    async setIfAbsent(key, value, ttlMs) {
      return (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK'
    },
    async increment(key, windowMs) {
      const result = (await redis.multi().incr(key).pexpire(key, windowMs, 'NX').pttl(key).exec()) as
        | [Error | null, number][]
        | null
      if (!result) throw new Error('redis transaction aborted')
      const [[incrError, count], , [ttlError, ttl]] = result as [
        [Error | null, number],
        unknown,
        [Error | null, number],
      ]
      if (incrError) throw incrError
      if (ttlError) throw ttlError
      return { count, ttlMs: ttl }
    },
    async delete(key) {
      await redis.del(key)
    },
    async ping() {
      await redis.ping()
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
