import { createRequire } from 'node:module'

/**
 * Short-lived shared state: caches, counters for rate limits, one-time markers.
 * In-process by default; Redis when REDIS_URL is set, so several instances see the same values.
 */
export type KeyValueStore = {
  readonly kind: 'memory' | 'redis'
  get(key: string): Promise<string | null>
  /**
   * `cache: true`: a value that can be computed again (a cached listing). The in-process store may
   * drop it before it expires, oldest first, to keep what such values hold under its bound; values
   * without it (markers, sessions, counters) are only ever dropped when they expire.
   */
  set(key: string, value: string, ttlMs: number, options?: SetOptions): Promise<void>
  /** Sets only when absent; true when this call set it. For once-only work across instances. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>
  /** Adds 1 and returns the new count and the time left; the window starts at the first hit. */
  increment(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>
  delete(key: string): Promise<void>
  ping(): Promise<void>
  close(): Promise<void>
}

export type SetOptions = { cache?: boolean }

export type KeyValueStoreOptions = {
  /**
   * In-process store: the most the values set with `cache: true` may hold together, in characters
   * of key and value (about bytes: cached values are JSON, mostly one byte per character). Default
   * 32 MiB. Redis bounds itself (`maxmemory`).
   */
  cacheChars?: number
}

const DEFAULT_CACHE_CHARS = 32 * 1024 * 1024

export function openKeyValueStore(
  redisUrl: string | undefined,
  prefix = 'rp:',
  options: KeyValueStoreOptions = {},
): KeyValueStore {
  return redisUrl ? redisStore(redisUrl, prefix) : memoryStore(options.cacheChars ?? DEFAULT_CACHE_CHARS)
}

function memoryStore(cacheChars: number): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>()
  /** The keys of cache values, oldest first, with their size; their total is `cached`. */
  const cacheSizes = new Map<string, number>()
  let cached = 0
  const remove = (key: string) => {
    entries.delete(key)
    const size = cacheSizes.get(key)
    if (size !== undefined) {
      cacheSizes.delete(key)
      cached -= size
    }
  }
  const put = (key: string, value: string, ttlMs: number, cache = false) => {
    remove(key)
    entries.set(key, { value, expiresAt: Date.now() + ttlMs })
    if (!cache) return
    const size = key.length + value.length
    cacheSizes.set(key, size)
    cached += size
    while (cached > cacheChars) {
      const oldest = cacheSizes.keys().next().value
      if (oldest === undefined) break
      remove(oldest)
    }
  }
  const live = (key: string) => {
    const entry = entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      remove(key)
      return undefined
    }
    return entry
  }
  // Expired entries are also swept in the background so an idle key does not stay forever.
  const sweeper = setInterval(() => {
    const now = Date.now()
    for (const [key, entry] of entries) if (entry.expiresAt <= now) remove(key)
  }, 60_000)
  sweeper.unref()
  return {
    kind: 'memory',
    async get(key) {
      return live(key)?.value ?? null
    },
    async set(key, value, ttlMs, options) {
      put(key, value, ttlMs, options?.cache)
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false
      put(key, value, ttlMs)
      return true
    },
    async increment(key, windowMs) {
      const entry = live(key)
      if (!entry) {
        put(key, '1', windowMs)
        return { count: 1, ttlMs: windowMs }
      }
      const count = Number(entry.value) + 1
      entry.value = String(count)
      return { count, ttlMs: entry.expiresAt - Date.now() }
    },
    async delete(key) {
      remove(key)
    },
    async ping() {},
    async close() {
      clearInterval(sweeper)
      entries.clear()
      cacheSizes.clear()
      cached = 0
    },
  }
}

function redisStore(url: string, prefix: string): KeyValueStore {
  // Required only when REDIS_URL is set (ADR 067): ioredis holds a few MB an in-process store never
  // needs. It is CommonJS, so this stays synchronous.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
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
