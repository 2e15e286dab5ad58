import { MEMORY_NOTE_MAX_LENGTH } from '#contracts/chat.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import { completeChat } from '#server/modules/models/llm-client.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import type { ChatRepo, SessionView } from './chat.repo.ts'
import { HISTORY_PAGE } from './chat-views.ts'
import { messageCost, type Prompt, SUMMARY_MAX_TOKENS, summaryPrompt } from './prompt.ts'
import type { TurnSlots } from './turn-slots.ts'

/** Most of the conversation one summary call reads. */
const SUMMARY_INPUT_TOKENS = 3000
/** Summary calls one trigger may make to catch up (a plan that shrank drops many messages at once). */
const SUMMARY_ROUNDS = 4

export type MemorySummaryDeps = {
  repo: Pick<ChatRepo, 'findSession' | 'memoryOf' | 'messagesBetween' | 'writeMemory'>
  /** The model summaries use (entitlements' `summaryModel`: a free one, the platform pays). */
  summaryModel: ModelConfig
  jobs: Pick<JobQueue, 'enqueue'>
  slots: Pick<TurnSlots, 'track' | 'shutdownSignal'>
  timeoutMs: number
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * The memory that follows the user's plan: what falls out of the context window is folded into the
 * session's memory note by the `chat-summary` job (ADR 017), never while a reply waits.
 */
export function createMemorySummary({ repo, summaryModel, jobs, slots, timeoutMs, log }: MemorySummaryDeps) {
  /**
   * After a reply: messages that no longer fit the window and are not yet in the memory note are
   * summarised into it by a job (one waiting per session), so a crash or restart does not lose it.
   * The reply never waits for this; a failure to queue is logged, and the next reply queues again.
   */
  function schedule(session: SessionView, next: Prompt) {
    const oldestKept = next.included[0]?.id
    if (!next.trimmed || oldestKept === undefined) return
    if (session.memoryThroughId !== null && session.memoryThroughId >= oldestKept - 1) return
    if (slots.shutdownSignal.aborted) return
    const payload = { sessionId: session.id, userId: session.userId, keptFromId: oldestKept }
    void slots.track(
      jobs.enqueue('chat-summary', payload, { key: `summary:${session.id}` }).catch((error: unknown) => {
        log({ sessionId: session.id, err: error }, 'memory summary could not be queued')
      }),
    )
  }

  /** Throws when the model fails, so the job is retried. */
  async function summarise(session: SessionView, keptFromId: number, signal: AbortSignal) {
    const model = summaryModel
    for (let round = 0; round < SUMMARY_ROUNDS; round++) {
      const memory = await repo.memoryOf(session.id)
      if (!memory) return
      const rows = await repo.messagesBetween(session.id, memory.throughId, keptFromId, HISTORY_PAGE)
      const chunk: typeof rows = []
      let tokens = 0
      for (const row of rows) {
        if (chunk.length > 0 && tokens + messageCost(row) > SUMMARY_INPUT_TOKENS) break
        chunk.push(row)
        tokens += messageCost(row)
      }
      const last = chunk.at(-1)
      if (!last) return
      const text = await completeChat({
        model,
        messages: summaryPrompt({
          characterName: session.roleName ?? '',
          userName: session.username,
          note: memory.note,
          messages: chunk,
        }),
        signal: AbortSignal.any([signal, slots.shutdownSignal]),
        timeoutMs,
        maxTokens: SUMMARY_MAX_TOKENS,
      })
      const note = Array.from(text.trim()).slice(0, MEMORY_NOTE_MAX_LENGTH).join('')
      if (!note) return
      const written = await repo.writeMemory(session.id, note, {
        throughId: last.id,
        expectedVersion: memory.version,
      })
      if (!written || chunk.length === rows.length) return
    }
  }

  return {
    schedule,

    /**
     * The `chat-summary` job: folds the messages before `keptFromId` that are not yet in the memory
     * note into it. Safe to run twice (the note is written only over the version it read).
     */
    async run(job: { sessionId: string; userId: string; keptFromId: number }, signal: AbortSignal) {
      const session = await repo.findSession(job.sessionId, job.userId)
      if (!session) return // The chat was deleted meanwhile.
      await summarise(session, job.keptFromId, signal)
    },
  }
}

export type MemorySummary = ReturnType<typeof createMemorySummary>
