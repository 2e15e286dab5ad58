import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'

export type Limit = { max: number; windowMs: number }

/**
 * Counts an attempt under `key` and refuses it with 429 and Retry-After once `max` attempts fall
 * in the window. Counters live in the key-value store, so several instances share them (Redis).
 */
export async function enforceLimit(kv: KeyValueStore, key: string, limit: Limit): Promise<void> {
  const { count, ttlMs } = await kv.increment(`rate:${key}`, limit.windowMs)
  if (count > limit.max) {
    const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000))
    throw new AppError(429, 'RATE_LIMITED', 'Too many attempts. Please wait and try again.', { retryAfterSeconds })
  }
}
