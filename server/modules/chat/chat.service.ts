import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import type { ChatRepo } from './chat.repo.ts'
import { createGeneration, type StreamLimits } from './generation.ts'
import { createMemorySummary } from './memory-summary.ts'
import { createModelActivity } from './model-activity.ts'
import { createChatSessions } from './sessions.ts'
import { createSwipesEdits } from './swipes-edits.ts'
import { createTurnPipeline } from './turn-pipeline.ts'
import { createTurnSlots } from './turn-slots.ts'

export type { ErrorEventData, TurnHooks, TurnOutcome } from './chat-views.ts'
export { invalidSession, toChatMessage } from './chat-views.ts'

export type ChatDeps = {
  repo: ChatRepo
  /** What the user may do and what it costs: plan, models, prices, the diamonds reserved (ADR 027). */
  entitlements: Pick<
    Entitlements,
    'planOf' | 'modelFor' | 'decideTurn' | 'withReservation' | 'freeSendRules' | 'isFreeModel' | 'summaryModel'
  >
  diamonds: Pick<DiamondsService, 'balanceOf'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
  /** Cap on each model call (LLM_TIMEOUT_MS). */
  timeoutMs: number
  /** Streamed replies: first-token and idle limits (LLM_FIRST_TOKEN_TIMEOUT_MS, LLM_IDLE_TIMEOUT_MS). */
  streamLimits?: StreamLimits | undefined
  log: (info: Record<string, unknown>, msg: string) => void
  /** Model failures an operator should act on (the provider's own reason). Default: `log`. */
  warn?: ((info: Record<string, unknown>, msg: string) => void) | undefined
  /** Memory summaries run as durable jobs (ADR 017). */
  jobs: Pick<JobQueue, 'enqueue' | 'retryNow'>
}

/**
 * A premium reply's hold still open this long after the model call's deadline was left by a process
 * that died mid-reply: the `stale-holds` job refunds it (ADR 024). A live reply never gets there.
 */
const HOLD_GRACE_MS = 5 * 60_000

/**
 * Chat: sessions with a character, replies streamed from the model, alternatives (swipes), edits,
 * and the memory that follows the user's plan. Rules (ADR 009): the user's message is stored before
 * the model is asked; a reply is stored when complete, or as `interrupted` with the text received
 * when it breaks off; diamonds are spent in the transaction that stores a complete reply.
 *
 * The parts, each in its file: sessions.ts (start, list, open, memory note), turn-pipeline.ts (the
 * one send path: send and regenerate), generation.ts (prompt, model, store and settle),
 * memory-summary.ts (the `chat-summary` job), swipes-edits.ts, turn-slots.ts (one reply per chat,
 * stop, shutdown). Plans, models and prices are entitlements' (server/modules/entitlements).
 */
export function createChatService(deps: ChatDeps) {
  const { repo, entitlements, timeoutMs, log } = deps
  const slots = createTurnSlots()
  const activity = createModelActivity()
  const memory = createMemorySummary({
    repo,
    summaryModel: entitlements.summaryModel,
    jobs: deps.jobs,
    slots,
    activity,
    timeoutMs,
    log,
    warn: deps.warn ?? log,
  })
  const generation = createGeneration({
    repo,
    diamonds: deps.diamonds,
    memory,
    activity,
    timeoutMs,
    streamLimits: deps.streamLimits,
    log,
    warn: deps.warn ?? log,
  })
  const turns = createTurnPipeline({ repo, entitlements, slots, generation })
  const sessions = createChatSessions({ repo, entitlements, catalogue: deps.catalogue, slots })
  const edits = createSwipesEdits({ repo, sessions, slots })

  return {
    /** How old an open hold of a reply must be before the `stale-holds` job refunds it. */
    holdDeadlineMs: timeoutMs + HOLD_GRACE_MS,

    /** The `chat-summary` job (ADR 017). */
    summariseMemory: memory.run,

    createSession: sessions.createSession,
    listSessions: sessions.listSessions,
    getSession: sessions.getSession,
    listMessages: sessions.listMessages,
    deleteSession: sessions.deleteSession,
    getMemory: sessions.getMemory,
    updateMemory: sessions.updateMemory,
    updateSettings: sessions.updateSettings,

    /**
     * "Try again" in the memory panel: the chat's failing summary runs now. False when its summaries
     * are not failing, or none waits, or it runs right now.
     */
    async retrySummary(userId: string, sessionId: string) {
      const session = await sessions.requireSession(sessionId, userId)
      const queued = session.summaryFailures > 0 && (await memory.retryNow(sessionId))
      return { queued, memory: await sessions.getMemory(userId, sessionId) }
    },

    send: turns.send,
    regenerate: turns.regenerate,
    continue: turns.continue,

    /** Stops the reply being written in the session; false when none is. */
    async stop(userId: string, sessionId: string): Promise<boolean> {
      await sessions.requireSession(sessionId, userId)
      return slots.stop(sessionId)
    },

    listSwipes: edits.listSwipes,
    selectSwipe: edits.selectSwipe,
    editMessage: edits.editMessage,
    deleteMessage: edits.deleteMessage,

    /**
     * On shutdown: replies being written stop (their text is kept as interrupted), summaries are
     * abandoned, and this resolves when their writes are done, before the database closes.
     */
    close: slots.close,
  }
}

export type ChatService = ReturnType<typeof createChatService>
