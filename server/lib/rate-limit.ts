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

/**
 * Counts `key` and says whether it is still within `max` in the window, refusing nothing: for work
 * the caller quietly skips (a mail not sent) where a 429 would tell a stranger something, or would
 * block the person the limit protects.
 */
export async function withinLimit(kv: KeyValueStore, key: string, limit: Limit): Promise<boolean> {
  const { count } = await kv.increment(`rate:${key}`, limit.windowMs)
  return count <= limit.max
}

/**
 * Failures only: whether `key` has had `max` failures in its window. Reading counts nothing, so an
 * attempt that succeeds leaves no trace; the caller records a failure with `countFailure`.
 */
export async function failuresReached(kv: KeyValueStore, key: string, limit: Limit): Promise<boolean> {
  return Number((await kv.get(`rate:${key}`)) ?? 0) >= limit.max
}

export async function countFailure(kv: KeyValueStore, key: string, limit: Limit): Promise<void> {
  await kv.increment(`rate:${key}`, limit.windowMs)
}

export async function clearFailures(kv: KeyValueStore, key: string): Promise<void> {
  await kv.delete(`rate:${key}`)
}
