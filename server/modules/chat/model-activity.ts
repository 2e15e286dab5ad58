import type { ModelConfig } from '#server/modules/models/models.ts'

/**
 * Which model endpoints are writing a user's reply on this instance, and the memory summaries that
 * give way to them (ADR 034). A llama.cpp server with one slot (or a shared KV cache) serves one
 * request at a time: a summary running beside a reply makes both slow, or both fail. So a summary
 * does not start while a reply is written on the same endpoint (base URL and model), and a reply
 * that starts aborts the summaries running there; they are queued again, not counted as failures.
 * A summary model on another endpoint (SUMMARY_MODEL) never meets a reply and never yields.
 */

/**
 * How long a reply waits after aborting a summary: the summary's connection is closed at once, but
 * llama.cpp notices a closed connection of a waiting request only when it next polls (each second)
 * and frees the summary's share of a shared KV cache then. Sent earlier, the reply can be refused
 * ("Context size has been exceeded"), which is what issue 18 saw.
 */
export const YIELD_GRACE_MS = 1_500

/** The summary gave way to a user's reply; the job runs again a little later. */
export class SummaryYielded extends Error {
  override name = 'SummaryYielded'
}

type Endpoint = Pick<ModelConfig, 'baseUrl' | 'model'>
const keyOf = (model: Endpoint) => `${model.baseUrl.replace(/\/+$/, '')}\n${model.model}`

export function createModelActivity() {
  /** Replies being written, per endpoint. */
  const replies = new Map<string, number>()
  /** Summaries running, per endpoint: the controller that makes each yield, and its end. */
  const summaries = new Map<string, Set<{ controller: AbortController; ended: Promise<unknown> }>>()

  return {
    /** True while a reply is being written on this endpoint. */
    busy: (model: Endpoint) => (replies.get(keyOf(model)) ?? 0) > 0,

    /**
     * A user's reply starts on `model`: the summaries running there are aborted (they re-queue).
     * `ready` resolves when the server has let go of them (at once when none ran); `end` is called
     * when the reply is done.
     */
    replyStarted(model: Endpoint, graceMs = YIELD_GRACE_MS): { ready: Promise<void>; end: () => void } {
      const key = keyOf(model)
      replies.set(key, (replies.get(key) ?? 0) + 1)
      const aborted = [...(summaries.get(key) ?? [])]
      for (const { controller } of aborted) controller.abort(new SummaryYielded('a reply started'))
      const ready =
        aborted.length === 0
          ? Promise.resolve()
          : Promise.allSettled(aborted.map((s) => s.ended)).then(() => new Promise<void>((r) => setTimeout(r, graceMs)))
      let ended = false
      const end = () => {
        if (ended) return
        ended = true
        const left = (replies.get(key) ?? 1) - 1
        if (left > 0) replies.set(key, left)
        else replies.delete(key)
      }
      return { ready, end }
    },

    /**
     * Runs a summary's model work on `model` with a signal that fires when a reply starts there (or
     * `signal` fires). Throws SummaryYielded when a reply is being written there already, or when one
     * started meanwhile, whatever `work` threw then.
     */
    async summary<T>(model: Endpoint, signal: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const key = keyOf(model)
      if ((replies.get(key) ?? 0) > 0) throw new SummaryYielded('a reply is being written on this model')
      const controller = new AbortController()
      let running = summaries.get(key)
      if (!running) {
        running = new Set()
        summaries.set(key, running)
      }
      const call = work(AbortSignal.any([signal, controller.signal]))
      const entry = { controller, ended: call }
      running.add(entry)
      try {
        return await call
      } catch (error) {
        if (controller.signal.aborted) throw new SummaryYielded('a reply started', { cause: error })
        throw error
      } finally {
        running.delete(entry)
        if (running.size === 0) summaries.delete(key)
      }
    },
  }
}

export type ModelActivity = ReturnType<typeof createModelActivity>
