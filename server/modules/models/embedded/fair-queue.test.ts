import { describe, expect, it } from 'vitest'
import { createFairQueue } from './fair-queue.ts'

/** Records the order in which requests get a slot; each holds it until released by the test. */
function recorder(queue: ReturnType<typeof createFairQueue>) {
  const order: string[] = []
  const leases = new Map<string, () => void>()
  const ask = (user: string, name: string, signal?: AbortSignal) =>
    queue.acquire(user, signal).then((lease) => {
      order.push(name)
      leases.set(name, lease.release)
      return lease
    })
  const release = async (name: string) => {
    leases.get(name)?.()
    // The next grant resolves a promise: let it run.
    await new Promise((r) => setImmediate(r))
  }
  return { order, ask, release }
}

describe('the fair queue of the embedded model', () => {
  it('gives free slots at once, then makes everyone else wait', async () => {
    const queue = createFairQueue(2)
    const { order, ask } = recorder(queue)
    void ask('a', 'a1')
    void ask('b', 'b1')
    void ask('c', 'c1')
    await new Promise((r) => setImmediate(r))
    expect(order).toEqual(['a1', 'b1'])
    expect(queue.busy()).toBe(2)
    expect(queue.waiting()).toBe(1)
  })

  it('serves users in turn: one user with many chats does not starve the others', async () => {
    const queue = createFairQueue(1)
    const { order, ask, release } = recorder(queue)
    void ask('greedy', 'g1')
    await new Promise((r) => setImmediate(r))
    // The greedy user queues four more chats before two others ask once each.
    for (const n of [2, 3, 4, 5]) void ask('greedy', `g${n}`)
    void ask('alice', 'a1')
    void ask('bob', 'b1')
    void ask('alice', 'a2')
    for (const name of ['g1', 'a1', 'b1', 'g2', 'a2', 'g3', 'g4', 'g5']) await release(name)
    // In turn: those not served yet first, then whoever was served longest ago.
    expect(order).toEqual(['g1', 'a1', 'b1', 'g2', 'a2', 'g3', 'g4', 'g5'])
    expect(queue.busy()).toBe(0)
  })

  it('with several slots, a user holding fewer goes first', async () => {
    const queue = createFairQueue(2)
    const { order, ask, release } = recorder(queue)
    void ask('a', 'a1')
    void ask('a', 'a2')
    await new Promise((r) => setImmediate(r))
    void ask('a', 'a3')
    void ask('b', 'b1')
    await release('a1')
    // a still holds a slot (a2), b none: b goes first although a asked earlier.
    expect(order).toEqual(['a1', 'a2', 'b1'])
    await release('a2')
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3'])
  })

  it('a request given up while waiting leaves the queue and takes no slot', async () => {
    const queue = createFairQueue(1)
    const { order, ask, release } = recorder(queue)
    void ask('a', 'a1')
    const stop = new AbortController()
    const given = ask('b', 'b1', stop.signal)
    void ask('c', 'c1')
    stop.abort(new Error('stopped'))
    await expect(given).rejects.toThrow('stopped')
    expect(queue.waiting()).toBe(1)
    await release('a1')
    expect(order).toEqual(['a1', 'c1'])
  })

  it('refuses at once when the signal already fired, and a double release frees one slot', async () => {
    const queue = createFairQueue(1)
    await expect(queue.acquire('a', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone')
    const lease = await queue.acquire('a')
    lease.release()
    lease.release()
    expect(queue.busy()).toBe(0)
    const again = await queue.acquire('b')
    expect(again.slot).toBe(lease.slot)
    expect(queue.busy()).toBe(1)
    expect(() => createFairQueue(0)).toThrow(RangeError)
  })
})
