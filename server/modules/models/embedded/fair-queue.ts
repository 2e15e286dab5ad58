/**
 * The embedded model's slots (context sequences) handed out fairly (ADR 036): requests wait per
 * user, and a freed slot goes to the waiting user holding the fewest slots, then to the one served
 * longest ago (round-robin), so one user with many chats open cannot starve the others. Within one
 * user, first come first served.
 * Pure: no timers, no I/O.
 */

export type FairQueue = {
  /**
   * Waits for a free slot for `user`; resolves with the slot's index and a `release` to call once
   * (extra calls are ignored). Rejects with the signal's reason when it aborts while waiting.
   */
  acquire(user: string, signal?: AbortSignal): Promise<{ slot: number; release: () => void }>
  /** Requests waiting, all users together. */
  waiting(): number
  /** Slots in use. */
  busy(): number
}

type Lease = { slot: number; release: () => void }
type Waiter = { grant: (lease: Lease) => void }

export function createFairQueue(slots: number): FairQueue {
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError('slots must be a positive integer')
  const free: number[] = Array.from({ length: slots }, (_, i) => i)
  /** The users waiting, each with its own requests in arrival order. */
  const queues = new Map<string, Waiter[]>()
  /** Slots each user holds now, and when each was last served (a counter), while it matters. */
  const active = new Map<string, number>()
  const lastServed = new Map<string, number>()
  let served = 0

  /**
   * Whose turn it is: the waiting user holding the fewest slots, then the one served longest ago
   * (never served first), then the one waiting longest.
   */
  function nextUser(): string | undefined {
    let best: string | undefined
    let bestKey: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]
    for (const user of queues.keys()) {
      const key: [number, number] = [active.get(user) ?? 0, lastServed.get(user) ?? -1]
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = user
        bestKey = key
      }
    }
    return best
  }

  function forget(user: string) {
    if (!queues.has(user) && !active.get(user)) {
      active.delete(user)
      lastServed.delete(user)
    }
  }

  function grantNext() {
    while (free.length > 0) {
      const user = nextUser()
      if (user === undefined) return
      const waiters = queues.get(user) ?? []
      const waiter = waiters.shift()
      if (waiters.length === 0) queues.delete(user)
      const slot = free.shift()
      if (!waiter || slot === undefined) return
      active.set(user, (active.get(user) ?? 0) + 1)
      lastServed.set(user, ++served)
      waiter.grant(lease(user, slot))
    }
  }

  function lease(user: string, slot: number) {
    let released = false
    return {
      slot,
      release() {
        if (released) return
        released = true
        active.set(user, (active.get(user) ?? 1) - 1)
        free.push(slot)
        grantNext()
        forget(user)
      },
    }
  }

  return {
    acquire(user, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const waiters = queues.get(user)
          const at = waiters?.indexOf(waiter) ?? -1
          if (waiters && at >= 0) {
            waiters.splice(at, 1)
            if (waiters.length === 0) queues.delete(user)
          }
          forget(user)
          reject(signal?.reason)
        }
        const waiter: Waiter = {
          grant(granted) {
            signal?.removeEventListener('abort', onAbort)
            resolve(granted)
          },
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        const waiters = queues.get(user)
        if (waiters) waiters.push(waiter)
        else queues.set(user, [waiter])
        grantNext()
      })
    },
    waiting: () => [...queues.values()].reduce((sum, w) => sum + w.length, 0),
    busy: () => slots - free.length,
  }
}
