import { replyInProgress } from './chat-views.ts'

export type Slot = {
  /** Fires on the caller's signal, a stop call or shutdown. */
  signal: AbortSignal
  /** Why the slot was aborted by this instance, if it was. */
  reason: () => 'stop' | 'shutdown' | undefined
}

type Entry = { controller: AbortController; reason: 'stop' | 'shutdown' | undefined; done?: Promise<unknown> }

/**
 * The generation running in each session on this instance: one at a time, the stop button, and the
 * work that must finish before the database closes (`close`).
 */
export function createTurnSlots() {
  const active = new Map<string, Entry>()
  const tasks = new Set<Promise<unknown>>()
  const shutdown = new AbortController()

  function track<T>(promise: Promise<T>): Promise<T> {
    tasks.add(promise)
    void promise.then(
      () => tasks.delete(promise),
      () => tasks.delete(promise),
    )
    return promise
  }

  function abort(entry: Entry, reason: 'stop' | 'shutdown') {
    entry.reason ??= reason
    entry.controller.abort()
  }

  return {
    /** Aborted when the service closes: background work (summaries) stops too. */
    shutdownSignal: shutdown.signal,
    track,
    busy: (sessionId: string) => active.has(sessionId),

    /** Holds the session's one slot for `run`; 409 REPLY_IN_PROGRESS when a reply runs there. */
    async withSlot<T>(sessionId: string, external: AbortSignal | undefined, run: (slot: Slot) => Promise<T>) {
      if (active.has(sessionId)) throw replyInProgress()
      const entry: Entry = { controller: new AbortController(), reason: undefined }
      active.set(sessionId, entry)
      const onAbort = () => entry.controller.abort()
      external?.addEventListener('abort', onAbort, { once: true })
      if (external?.aborted) entry.controller.abort()
      try {
        entry.done = track(run({ signal: entry.controller.signal, reason: () => entry.reason }))
        return (await entry.done) as T
      } finally {
        external?.removeEventListener('abort', onAbort)
        active.delete(sessionId)
      }
    },

    /** Stops the reply being written in the session; false when none is. */
    stop(sessionId: string): boolean {
      const entry = active.get(sessionId)
      if (!entry) return false
      abort(entry, 'stop')
      return true
    },

    /** Stops the session's reply, if any, and waits until it is stored. */
    async stopAndWait(sessionId: string) {
      const entry = active.get(sessionId)
      if (!entry) return
      abort(entry, 'stop')
      await entry.done?.catch(() => {})
    },

    /** Stops every reply (kept as interrupted) and resolves when all tracked work is done. */
    async close() {
      shutdown.abort()
      for (const entry of active.values()) abort(entry, 'shutdown')
      await Promise.allSettled([...tasks])
    },
  }
}

export type TurnSlots = ReturnType<typeof createTurnSlots>
