import { afterEach, describe, expect, it, vi } from 'vitest'
import { throttledRead } from './throttled-read.ts'

describe('throttledRead', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('reads at most once per max age: calls meanwhile share the read in flight, then its answer', async () => {
    vi.useFakeTimers()
    let reads = 0
    const value = throttledRead(async () => `v${++reads}`, 200)
    const [a, b] = await Promise.all([value.get(), value.get()])
    expect([a, b, reads]).toEqual(['v1', 'v1', 1])
    expect(value.get()).toBe('v1')
    vi.advanceTimersByTime(201)
    expect(await value.get()).toBe('v2')
  })

  it('reads anew after forget(), and does not keep the answer of a read started before it', async () => {
    let reads = 0
    let release: (() => void) | undefined
    const value = throttledRead(async () => {
      const n = ++reads
      if (n === 1) await new Promise<void>((resolve) => (release = resolve))
      return `v${n}`
    }, 10_000)
    const stale = value.get()
    value.forget()
    // The read started after forget() is not joined to the earlier one.
    expect(await value.get()).toBe('v2')
    release?.()
    expect(await stale).toBe('v1')
    // v1 came back after the forget: v2 stays the remembered answer.
    expect(value.get()).toBe('v2')
  })

  it('reads on every call with a max age of 0', async () => {
    let reads = 0
    const value = throttledRead(async () => ++reads, 0)
    await value.get()
    await value.get()
    expect(reads).toBe(2)
  })
})
