import { afterEach, describe, expect, it, vi } from 'vitest'
import { createReplyRecorder } from './console-health.ts'
import { type ReplyStat, ttftBucketOf } from './health-stats.repo.ts'

/** A stand-in for the statistics repo: what each `record` call was given. */
function fakeStats(fail = false) {
  const calls: ReplyStat[][] = []
  return {
    calls,
    async record(stats: readonly ReplyStat[]) {
      calls.push(stats.map((s) => ({ ...s })))
      if (fail) throw new Error('database gone')
    },
  }
}

describe('reply statistics recorder (ADR 057, 064)', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('adds up the replies of a second by day, model, outcome and bucket, and writes them in one call', async () => {
    const stats = fakeStats()
    const record = createReplyRecorder(stats, () => {}, 60_000)
    record('tavern-8b', 'ok', 1_200)
    record('tavern-8b', 'ok', 1_300)
    record('tavern-8b', 'ok', 3_000)
    record('tavern-8b', 'timeout', null)
    record('other', 'ok', 1_250)
    expect(stats.calls).toHaveLength(0)
    await record.flush()
    expect(stats.calls).toHaveLength(1)
    const rows = stats.calls[0] ?? []
    const day = new Date().toISOString().slice(0, 10)
    expect(rows).toHaveLength(4)
    expect(rows).toContainEqual({
      day,
      modelId: 'tavern-8b',
      outcome: 'ok',
      ttftBucket: ttftBucketOf(1_200),
      replies: 2,
      ttftMsTotal: 2_500,
    })
    expect(rows).toContainEqual({
      day,
      modelId: 'tavern-8b',
      outcome: 'ok',
      ttftBucket: ttftBucketOf(3_000),
      replies: 1,
      ttftMsTotal: 3_000,
    })
    expect(rows).toContainEqual({
      day,
      modelId: 'tavern-8b',
      outcome: 'timeout',
      ttftBucket: -1,
      replies: 1,
      ttftMsTotal: 0,
    })
    expect(rows).toContainEqual({
      day,
      modelId: 'other',
      outcome: 'ok',
      ttftBucket: ttftBucketOf(1_250),
      replies: 1,
      ttftMsTotal: 1_250,
    })
    // Nothing gathered since: a flush writes nothing more.
    await record.flush()
    expect(stats.calls).toHaveLength(1)
  })

  it('writes by itself after the interval, without anyone waiting', async () => {
    vi.useFakeTimers()
    const stats = fakeStats()
    const record = createReplyRecorder(stats, () => {}, 1_000)
    record('tavern-8b', 'ok', 100)
    await vi.advanceTimersByTimeAsync(999)
    expect(stats.calls).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(stats.calls).toEqual([[expect.objectContaining({ modelId: 'tavern-8b', replies: 1, ttftMsTotal: 100 })]])
  })

  it('logs a failed write and keeps recording', async () => {
    const stats = fakeStats(true)
    const warn = vi.fn()
    const record = createReplyRecorder(stats, warn, 60_000)
    record('tavern-8b', 'ok', 100)
    record('tavern-8b', 'ok', 100)
    await expect(record.flush()).resolves.toBeUndefined()
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ replies: 2 }), 'reply statistics not recorded')
    record('tavern-8b', 'provider', null)
    await record.flush()
    expect(stats.calls).toHaveLength(2)
    expect(stats.calls[1]).toEqual([expect.objectContaining({ outcome: 'provider', replies: 1 })])
  })
})
