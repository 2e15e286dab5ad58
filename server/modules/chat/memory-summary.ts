import {
  type ChatSessionDetail,
  MEMORY_NOTE_MAX_LENGTH,
  SUMMARY_NOTICE_FAILURES,
  type SummaryFailureCode,
} from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import { JOB_KINDS, type JobPayloads } from '#server/modules/jobs/job-kinds.ts'
import { DeferJobError, type JobQueue } from '#server/modules/jobs/job-queue.ts'
import { completeChat, LlmError, opaqueUserId } from '#server/modules/models/llm-client.ts'
import { OPERATOR_HINTS } from '#server/modules/models/model-failures.ts'
import { modelContext, recordContextExceeded } from '#server/modules/models/model-server-info.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { tokenizerReady } from '#server/modules/models/tokens.ts'
import type { ChatRepo, SessionView } from './chat.repo.ts'
import { HISTORY_PAGE, toHistory } from './chat-views.ts'
import { reasoningFields } from './generation.ts'
import { chatLanguage } from './language.ts'
import type { ModelActivity } from './model-activity.ts'
import { SummaryYielded } from './model-activity.ts'
import type { Prompt } from './prompt.ts'
import { buildSummaryRequest, type SummaryBudget, type SummaryRequest, summaryBudget } from './summary-request.ts'
import type { TurnSlots } from './turn-slots.ts'

/** Summary calls one trigger may make to catch up (a plan that shrank drops many messages at once). */
const SUMMARY_ROUNDS = 4
/** A summary refused as too long is built again this much smaller, this many times (like a reply, ADR 031). */
const LENGTH_RETRY_SHARE = 0.75
const LENGTH_RETRIES = 2
/** A summary that gave way to a reply runs again after this long (not counted as a failure). */
export const SUMMARY_DEFER_MS = 5_000
/** After the job gave up, the next reply queues the summary again, but not before this pause. */
export const SUMMARY_GIVE_UP_PAUSE_MS = 15 * 60_000
/** Failures in a row after which the job gave up (its attempts). */
const GIVE_UP_FAILURES = JOB_KINDS['chat-summary'].maxAttempts

type Log = (info: Record<string, unknown>, msg: string) => void

export type MemorySummaryDeps = {
  /** A scene's speakers by name (ADR 052): the summary says who said what. */
  speakerNames?: ((roleIds: readonly number[]) => Promise<{ id: number; name: string }[]>) | undefined
  repo: Pick<
    ChatRepo,
    'findSession' | 'memoryOf' | 'messagesBetween' | 'writeMemory' | 'recordSummaryFailure' | 'clearSummaryFailures'
  >
  /** The model summaries use (entitlements' `summaryModel`: SUMMARY_MODEL, else a free one). */
  summaryModel: ModelConfig
  jobs: Pick<JobQueue, 'enqueue' | 'retryNow'>
  slots: Pick<TurnSlots, 'track' | 'shutdownSignal'>
  /** Replies being written per model endpoint: a summary gives way to them (ADR 034). */
  activity: Pick<ModelActivity, 'summary'>
  timeoutMs: number
  log: Log
  /** A summary that failed, with the provider's reason. Default: `log`. */
  warn?: Log | undefined
  /** Tests shorten the pause of a summary that gave way. */
  deferMs?: number
}

/** Why a summary failed, as stored on the session and named in the memory panel. */
export function summaryFailureCode(error: unknown): SummaryFailureCode {
  if (!(error instanceof LlmError)) return 'other'
  return error.kind === 'timeout' ? 'timeout' : error.reason
}

/** The memory note of a session as the client sees it, with the notice of summaries that keep failing. */
export function memoryView(session: SessionView): ChatSessionDetail['memory'] {
  const failing =
    session.summaryFailures >= SUMMARY_NOTICE_FAILURES && session.summaryFailedAt && session.summaryFailureCode
  return {
    note: session.memoryNote,
    coversThroughMessageId: session.memoryThroughId,
    updatedAt: session.memoryUpdatedAt?.toISOString() ?? null,
    summaryProblem: failing
      ? {
          failures: session.summaryFailures,
          lastFailedAt: session.summaryFailedAt?.toISOString() ?? '',
          code: session.summaryFailureCode ?? 'other',
          gaveUp: session.summaryFailures >= GIVE_UP_FAILURES,
        }
      : null,
  }
}

/**
 * The memory that follows the user's plan: what falls out of the context window is folded into the
 * session's memory note by the `chat-summary` job (ADR 017), never at the cost of a reply (ADR 034):
 * sized to the summary model's context, giving way to the replies written on its endpoint, and
 * failures kept on the session for the memory panel.
 */
export function createMemorySummary(deps: MemorySummaryDeps) {
  const { repo, summaryModel, jobs, slots, activity, timeoutMs, log, speakerNames } = deps
  const warn = deps.warn ?? log
  const deferMs = deps.deferMs ?? SUMMARY_DEFER_MS
  const keyOf = (sessionId: string) => `summary:${sessionId}`

  /**
   * After a reply: messages that no longer fit the window and are not yet in the memory note are
   * summarised into it by a job (one waiting per session), so a crash or restart does not lose it.
   * The reply never waits for this; a failure to queue is logged, and the next reply queues again.
   * After the job gave up, it is queued again, SUMMARY_GIVE_UP_PAUSE_MS after the last failure.
   */
  function schedule(session: SessionView, next: Prompt, language: Locale | null = null) {
    const oldestKept = next.included[0]?.id
    if (!next.trimmed || oldestKept === undefined) return
    if (session.memoryThroughId !== null && session.memoryThroughId >= oldestKept - 1) return
    if (slots.shutdownSignal.aborted) return
    const payload = { sessionId: session.id, userId: session.userId, keptFromId: oldestKept, language }
    const failedAt = session.summaryFailedAt?.getTime()
    const pauseUntil =
      session.summaryFailures >= GIVE_UP_FAILURES && failedAt !== undefined ? failedAt + SUMMARY_GIVE_UP_PAUSE_MS : 0
    const options =
      pauseUntil > Date.now() ? { key: keyOf(session.id), runAt: new Date(pauseUntil) } : { key: keyOf(session.id) }
    void slots.track(
      jobs.enqueue('chat-summary', payload, options).catch((error: unknown) => {
        log({ sessionId: session.id, err: error }, 'memory summary could not be queued')
      }),
    )
  }

  /**
   * Asks the model for the summary, in one answer. Aborting it closes the connection, which
   * llama.cpp and vLLM take as a cancel: a summary that gives way frees the server at once.
   */
  const ask = (request: SummaryRequest, budget: SummaryBudget, signal: AbortSignal, userId: string) =>
    completeChat({
      model: summaryModel,
      messages: request.messages,
      signal,
      user: opaqueUserId(userId),
      timeoutMs,
      maxTokens: budget.outputTokens,
      extraBody: reasoningFields(summaryModel),
    })

  /** One summary call over `rows`, trimmed and sent again when the server refuses it as too long. */
  async function summaryOf(
    session: SessionView,
    note: string,
    rows: SummaryRequest['covered'],
    signal: AbortSignal,
    queuedLanguage: Locale | null,
    sceneNames: readonly string[],
  ) {
    // The request is measured and trimmed synchronously (summary-request.ts, ADR 067).
    await tokenizerReady()
    // The chat's own language now, else the one its replies were written in when the job was queued.
    const names = {
      characterName: session.roleName ?? '',
      userName: session.username,
      language: chatLanguage(session.language, queuedLanguage),
      sceneNames,
    }
    const sample = rows[0]?.content ?? ''
    for (let attempt = 0, share = 1; ; attempt++, share *= LENGTH_RETRY_SHARE) {
      const fit = await modelContext(summaryModel, sample)
      const budget = summaryBudget(fit, share)
      const request = buildSummaryRequest(names, note, rows, budget)
      if (!request) {
        throw new LlmError(
          'provider',
          `The model context (${fit.serverContextTokens} tokens) is too small for a summary`,
          {
            reason: 'context_too_long',
          },
        )
      }
      try {
        const signals = AbortSignal.any([signal, slots.shutdownSignal])
        const text = await activity.summary(summaryModel, signals, (yieldSignal) =>
          ask(request, budget, yieldSignal, session.userId),
        )
        return { text, covered: request.covered }
      } catch (error) {
        if (!(error instanceof LlmError) || error.reason !== 'context_too_long' || attempt >= LENGTH_RETRIES)
          throw error
        log(
          { sessionId: session.id, modelId: summaryModel.id, err: error },
          'summary refused as too long: trimmed, retrying',
        )
        await recordContextExceeded(summaryModel, sample, 0).catch(() => {})
      }
    }
  }

  /** Throws when the model fails, so the job is retried. */
  async function summarise(session: SessionView, keptFromId: number, signal: AbortSignal, language: Locale | null) {
    for (let round = 0; round < SUMMARY_ROUNDS; round++) {
      const memory = await repo.memoryOf(session.id)
      if (!memory) return
      const found = await repo.messagesBetween(session.id, memory.throughId, keptFromId, HISTORY_PAGE)
      const speakerIds = [...new Set(found.flatMap((r) => (r.speakerRoleId === null ? [] : [r.speakerRoleId])))]
      const names = new Map(
        speakerIds.length > 0 && speakerNames ? (await speakerNames(speakerIds)).map((n) => [n.id, n.name]) : [],
      )
      const rows = found.map((r) => {
        const speaker = r.speakerRoleId === null ? undefined : names.get(r.speakerRoleId)
        return speaker ? { ...toHistory(r), speaker } : toHistory(r)
      })
      if (rows.length === 0) return
      const { text, covered } = await summaryOf(session, memory.note, rows, signal, language, [...names.values()])
      const last = covered.at(-1)
      const note = Array.from(text.trim()).slice(0, MEMORY_NOTE_MAX_LENGTH).join('')
      if (!note || !last) throw new LlmError('invalid', 'The model sent an empty summary')
      const written = await repo.writeMemory(session.id, note, {
        throughId: last.id,
        expectedVersion: memory.version,
      })
      if (!written || covered.length === rows.length) return
    }
  }

  return {
    schedule,

    /**
     * The `chat-summary` job: folds the messages before `keptFromId` that are not yet in the memory
     * note into it. Safe to run twice (the note is written only over the version it read). A
     * summary that gave way to a reply is deferred (DeferJobError); a failure is counted on the
     * session, logged at warn with the provider's reason, and thrown so the job is retried.
     */
    async run(job: JobPayloads['chat-summary'], signal: AbortSignal) {
      const session = await repo.findSession(job.sessionId, job.userId)
      if (!session) return // The chat was deleted meanwhile.
      try {
        await summarise(session, job.keptFromId, signal, job.language ?? null)
      } catch (error) {
        if (error instanceof SummaryYielded) throw new DeferJobError(deferMs, error.message, { cause: error })
        // Shutdown: the queue puts the job back, not the summary's fault.
        if (signal.aborted || slots.shutdownSignal.aborted) throw error
        const code = summaryFailureCode(error)
        const llm = error instanceof LlmError ? error : undefined
        warn(
          {
            sessionId: session.id,
            modelId: summaryModel.id,
            code,
            kind: llm?.kind,
            status: llm?.status,
            hint: llm?.kind === 'provider' ? OPERATOR_HINTS[llm.reason] : undefined,
            failures: session.summaryFailures + 1,
            err: error,
          },
          'memory summary failed',
        )
        await repo.recordSummaryFailure(session.id, code).catch((recordError: unknown) => {
          log({ sessionId: session.id, err: recordError }, 'memory summary failure could not be recorded')
        })
        throw error
      }
      if (session.summaryFailures > 0) await repo.clearSummaryFailures(session.id)
    },

    /** "Try again": the session's summary runs now (the waiting job, or the one given up). */
    retryNow: (sessionId: string) => jobs.retryNow(keyOf(sessionId)),
  }
}

export type MemorySummary = ReturnType<typeof createMemorySummary>
