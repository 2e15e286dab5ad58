import type { ChatReply, ContextUsage } from '#contracts/chat.ts'
import type { Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Reservation } from '#server/modules/entitlements/entitlements.service.ts'
import { LlmError, streamChat } from '#server/modules/models/llm-client.ts'
import { modelContext } from '#server/modules/models/model-server-info.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import type { ChatMessageRow, ChatRepo, SessionView } from './chat.repo.ts'
import {
  characterOf,
  failureMessage,
  type TurnHooks,
  type TurnOutcome,
  toChatMessage,
  toHistory,
  usageOf,
} from './chat-views.ts'
import { type LoadedHistory, loadHistory } from './history.ts'
import type { MemorySummary } from './memory-summary.ts'
import { buildPrompt, contextWindow } from './prompt.ts'
import type { Slot } from './turn-slots.ts'

/** One turn, once the user may take it: the last stages of the send path (docs/architecture.md). */
export type Turn = {
  userId: string
  session: SessionView
  plan: Plan
  model: ModelConfig
  /** What the reply costs when stored complete (entitlements' decision): 0 for a free model. */
  price: number
  /** Add an alternative to this reply; null: a new reply. */
  targetId: number | null
  /** The message the reply answers, once stored (or found, for a repeat); null for a regeneration. */
  userMessage: ChatMessageRow | null
  requestId: string | null
  hooks: TurnHooks
  slot: Slot
  /** A premium reply's price, reserved before the model is asked (entitlements); null: free. */
  reservation: Reservation | null
}

export type GenerationDeps = {
  repo: Pick<ChatRepo, 'recentMessages' | 'storeReply'>
  diamonds: Pick<DiamondsService, 'balanceOf'>
  memory: Pick<MemorySummary, 'schedule'>
  /** Deadline of each model call (LLM_TIMEOUT_MS). */
  timeoutMs: number
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * The end of every turn: build the prompt, ask the model, stream its text, store the reply (or what
 * came of it, as `interrupted`) and settle its price in the same transaction (ADR 009, ADR 024).
 */
export function createGeneration({ repo, diamonds, memory, timeoutMs, log }: GenerationDeps) {
  async function resultOf(
    turn: Turn,
    reply: ChatMessageRow,
    context: ContextUsage,
    flags: { stopped: boolean; replayed: boolean },
  ): Promise<ChatReply> {
    return {
      content: reply.content,
      sessionId: turn.session.id,
      userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
      reply: toChatMessage(reply),
      stopped: flags.stopped,
      replayed: flags.replayed,
      diamondsSpent: flags.replayed ? 0 : reply.diamondsSpent,
      balance: await diamonds.balanceOf(turn.userId),
      context,
    }
  }

  /** The answer already stored for a repeated request: nothing is generated or spent again. */
  async function replay(turn: Turn, reply: ChatMessageRow): Promise<TurnOutcome> {
    turn.hooks.onStart({
      sessionId: turn.session.id,
      userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
      modelId: reply.modelId ?? turn.model.id,
      replayed: true,
    })
    turn.hooks.onDelta(reply.content)
    const fit = await modelContext(turn.model, turn.session.lastMessagePreview ?? '')
    const window = contextWindow(turn.plan.memoryK, fit.contextTokens, fit.maxReplyTokens)
    const { history, olderExist } = await loadHistory(repo, turn.session.id, window.budgetTokens)
    const prompt = buildPrompt({
      character: characterOf(turn.session),
      userName: turn.session.username,
      memoryNote: turn.session.memoryNote,
      history,
      olderExist,
      budgetTokens: window.budgetTokens,
    })
    const result = await resultOf(turn, reply, usageOf(prompt, turn.model, turn.plan, window), {
      stopped: reply.status === 'interrupted',
      replayed: true,
    })
    return { kind: 'done', result }
  }

  /**
   * Asks the model and stores what comes back. Runs inside the session's slot. `loaded`: the
   * history, when the caller read it already.
   */
  async function generate(turn: Turn, loaded?: LoadedHistory): Promise<TurnOutcome> {
    const { session, model, plan, hooks, slot } = turn
    const fit = await modelContext(model, turn.userMessage?.content ?? session.lastMessagePreview ?? '')
    const window = contextWindow(plan.memoryK, fit.contextTokens, fit.maxReplyTokens)
    const character = characterOf(session)
    const { history, olderExist } =
      loaded ?? (await loadHistory(repo, session.id, window.budgetTokens, turn.targetId ?? undefined))
    const promptInput = {
      character,
      userName: session.username,
      memoryNote: session.memoryNote,
      olderExist,
      budgetTokens: window.budgetTokens,
    }
    const prompt = buildPrompt({ ...promptInput, history })
    // The model is asked first and the start event written while the request travels: the time to
    // the first token does not wait for it.
    const stream = streamChat({
      model,
      messages: prompt.messages,
      signal: slot.signal,
      timeoutMs,
      maxTokens: window.replyReserveTokens,
    })
    const first = stream.next()
    // Awaited below; this only keeps a failure that comes before then from counting as unhandled.
    first.catch(() => {})
    try {
      hooks.onStart({
        sessionId: session.id,
        userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
        modelId: model.id,
        replayed: false,
      })
    } catch (error) {
      void stream.return({ finishReason: 'aborted', text: '' }).catch(() => {})
      throw error
    }

    let text = ''
    let failure: LlmError | undefined
    try {
      let step = await first
      try {
        for (; !step.done; step = await stream.next()) {
          text += step.value
          hooks.onDelta(step.value)
        }
      } finally {
        // As `for await` does when its body throws: the call is ended (and its connection released).
        if (!step.done) await stream.return({ finishReason: 'aborted', text })
      }
    } catch (error) {
      if (!(error instanceof LlmError)) throw error
      failure = error
    }
    if (!failure && !text.trim()) failure = new LlmError('invalid', 'The model sent an empty reply')

    const toStore = {
      sessionId: session.id,
      messageId: turn.targetId,
      content: text,
      tokens: countTokens(text),
      modelId: model.id,
      requestId: turn.requestId,
    }
    const userMessageId = turn.userMessage?.id ?? null

    if (!failure) {
      const cost = turn.price
      let reply: ChatMessageRow
      try {
        // The hold's diamonds come back and are spent on this reply, in the transaction storing it.
        const complete = { ...toStore, status: 'complete' as const, diamondsSpent: cost }
        reply = turn.reservation
          ? await turn.reservation.commit((pay) =>
              repo.storeReply(complete, (tx: Tx, swipeId: number) => pay(tx, `chat:${swipeId}`)),
            )
          : await repo.storeReply(complete)
      } catch (error) {
        // Only when the hold was refunded meanwhile (a reply that outlived the stale-hold deadline)
        // and the balance no longer covers the reply.
        if (error instanceof AppError && error.code === 'INSUFFICIENT_DIAMONDS') {
          return {
            kind: 'failed',
            error: new AppError(402, 'INSUFFICIENT_DIAMONDS', 'Not enough diamonds for this.', {
              needed: cost,
              userMessageId,
            }),
            event: {
              code: 'INSUFFICIENT_DIAMONDS',
              kind: null,
              message: 'Not enough diamonds for this.',
              partialKept: false,
              reply: null,
              userMessageId,
            },
          }
        }
        throw error
      }
      const next = buildPrompt({ ...promptInput, history: [...history, toHistory(reply)] })
      memory.schedule(session, next)
      const result = await resultOf(turn, reply, usageOf(next, model, plan, window), {
        stopped: false,
        replayed: false,
      })
      return { kind: 'done', result }
    }

    const stored = text.trim() ? await repo.storeReply({ ...toStore, status: 'interrupted', diamondsSpent: 0 }) : null
    const reply = stored ? toChatMessage(stored) : null
    const reason = slot.reason()
    if (failure.kind === 'aborted' && reason !== 'shutdown') {
      if (!stored) return { kind: 'stopped', result: null, reply: null }
      const next = buildPrompt({ ...promptInput, history: [...history, toHistory(stored)] })
      const result = await resultOf(turn, stored, usageOf(next, model, plan, window), {
        stopped: true,
        replayed: false,
      })
      return { kind: 'stopped', result, reply }
    }
    const code = reason === 'shutdown' ? 'SERVICE_UNAVAILABLE' : 'MODEL_ERROR'
    const message = reason === 'shutdown' ? 'The server is restarting. Please retry.' : failureMessage(failure)
    const details = { kind: failure.kind, partialKept: Boolean(stored), reply, userMessageId }
    const status = reason === 'shutdown' ? 503 : failure.kind === 'timeout' ? 504 : 502
    log({ sessionId: session.id, modelId: model.id, kind: failure.kind, err: failure }, 'chat reply failed')
    return {
      kind: 'failed',
      error: new AppError(status, code, message, details),
      event: { code, message, ...details },
    }
  }

  return { generate, replay }
}

export type Generation = ReturnType<typeof createGeneration>
