import { randomUUID } from 'node:crypto'
import type { ChatReply, ContextUsage, MessageStatus } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Reservation } from '#server/modules/entitlements/entitlements.service.ts'
import { samplingParams } from '#server/modules/models/generation-settings.ts'
import {
  LlmError,
  type LlmErrorKind,
  opaqueUserId,
  reasoningOff,
  streamChat,
} from '#server/modules/models/llm-client.ts'
import { OPERATOR_HINTS } from '#server/modules/models/model-failures.ts'
import { modelContext, recordContextExceeded, recordPromptUsage } from '#server/modules/models/model-server-info.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { effectiveSettings } from '#server/modules/models/user-settings.ts'
import { authorNoteOf } from './authors-note.ts'
import type { ChatMessageRow, ChatRepo, SessionView } from './chat.repo.ts'
import {
  characterOf,
  failedTurn,
  type TurnHooks,
  type TurnOutcome,
  toChatMessage,
  toHistory,
  usageOf,
} from './chat-views.ts'
import { continuationMessages, createEchoStripper, joinContinuation } from './continuation.ts'
import { type LoadedHistory, loadHistory, olderCharacterMessages } from './history.ts'
import { chatLanguage } from './language.ts'
import type { MemorySummary } from './memory-summary.ts'
import type { ModelActivity } from './model-activity.ts'
import { buildPrompt, contextWindow } from './prompt.ts'
import { createNameStripper } from './scene-prompt.ts'
import { type Scenes, sceneStops } from './scenes.ts'
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
  /** Continue: the reply (its shown alternative) the model extends; null for a new reply (ADR 031). */
  continuing: ChatMessageRow | null
  /** The interface's language of the request (the client's, else the `lang` cookie); null: not known. */
  locale: Locale | null
  /** In a scene (ADR 052): the member asked to answer (public id); null: the scene's mode chooses. */
  speaker: string | null
}

export type GenerationDeps = {
  repo: Pick<ChatRepo, 'recentMessages' | 'countCharacterMessagesBefore' | 'storeReply' | 'extendReply'>
  diamonds: Pick<DiamondsService, 'balanceOf'>
  memory: Pick<MemorySummary, 'schedule'>
  /** Group scenes (ADR 052): who speaks and the prompt that makes the reply theirs. */
  scenes?: Pick<Scenes, 'castFor'> | undefined
  /** Replies being written per model endpoint: summaries there give way (ADR 034). */
  activity?: Pick<ModelActivity, 'replyStarted'> | undefined
  /** Cap on each model call (LLM_TIMEOUT_MS), a safety net. */
  timeoutMs: number
  /** The limits that fit streaming (ADR 031): the first token, then the pause between tokens. */
  streamLimits?: StreamLimits | undefined
  log: (info: Record<string, unknown>, msg: string) => void
  /** A failure the operator can act on, with the provider's own reason. */
  warn?: ((info: Record<string, unknown>, msg: string) => void) | undefined
  /**
   * Told how each reply ended and how long its first token took (ms, null when none came), for the
   * console's daily figures (ADR 057); must not throw or wait.
   */
  recordReply?: ((modelId: string, outcome: ReplyOutcome, ttftMs: number | null) => void) | undefined
}

/** How a reply ended: stored (`ok`), stopped by its user, or the model error's kind. */
export type ReplyOutcome = 'ok' | 'stopped' | LlmErrorKind

export type StreamLimits = { firstTokenTimeoutMs: number; idleTimeoutMs: number }

/** A prompt the model refused as too long is built again within this share of the budget, once. */
const CONTEXT_RETRY_SHARE = 0.75

/**
 * The request fields of a model's reasoning setting. MODELS_FILE's `reasoningOff`:
 * `chat_template_kwargs` (llama.cpp, vLLM: Qwen 3-style templates) or `reasoning_effort`
 * (OpenAI-style APIs). Absent: the server's default.
 */
export function reasoningFields(model: ModelConfig): Record<string, unknown> | undefined {
  const setting = model.reasoningOff
  if (setting === 'chat_template_kwargs') return reasoningOff('template')
  if (setting === 'reasoning_effort') return reasoningOff('effort')
  return undefined
}

/**
 * The time limits of a call to `model`: its own from MODELS_FILE (`timeoutMs`, `firstTokenTimeoutMs`,
 * `idleTimeoutMs`), else the LLM_* ones. A model's `timeoutMs` is at most LLM_TIMEOUT_MS (models.ts):
 * the stale-holds job counts on it (ADR 024).
 */
export function timeLimitsOf(model: ModelConfig, timeoutMs: number, streamLimits: StreamLimits | undefined) {
  const own = model.timeLimits
  return {
    timeoutMs: own?.timeoutMs ?? timeoutMs,
    firstTokenTimeoutMs: own?.firstTokenTimeoutMs ?? streamLimits?.firstTokenTimeoutMs,
    idleTimeoutMs: own?.idleTimeoutMs ?? streamLimits?.idleTimeoutMs,
  }
}

/**
 * The end of every turn: build the prompt, ask the model, stream its text, store the reply (or what
 * came of it, as `interrupted`) and settle its price in the same transaction (ADR 009, ADR 024).
 */
export function createGeneration({
  repo,
  diamonds,
  memory,
  activity,
  scenes,
  timeoutMs,
  streamLimits,
  log,
  warn = log,
  recordReply,
}: GenerationDeps) {
  async function resultOf(
    turn: Turn,
    reply: ChatMessageRow,
    context: ContextUsage,
    flags: {
      stopped: boolean
      replayed: boolean
      speaker?: { id: string; name: string } | undefined
      /** The balance read with the reply when it was stored; undefined: read now. */
      balance?: number | undefined
    },
  ): Promise<ChatReply> {
    const message = toChatMessage(reply)
    return {
      content: reply.content,
      sessionId: turn.session.id,
      userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
      reply: flags.speaker ? { ...message, speaker: flags.speaker } : message,
      stopped: flags.stopped,
      replayed: flags.replayed,
      diamondsSpent: flags.replayed ? 0 : reply.diamondsSpent,
      balance: flags.balance ?? (await diamonds.balanceOf(turn.userId)),
      context,
    }
  }

  /** The answer already stored for a repeated request: nothing is generated or spent again. */
  async function replay(turn: Turn, reply: ChatMessageRow): Promise<TurnOutcome> {
    await tokenizerReady()
    turn.hooks.onStart({
      sessionId: turn.session.id,
      userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
      modelId: reply.modelId ?? turn.model.id,
      replayed: true,
    })
    turn.hooks.onDelta(reply.content)
    const fit = await modelContext(turn.model, turn.session.lastMessagePreview ?? '')
    const window = contextWindow(
      turn.plan.memoryK,
      fit.contextTokens,
      effectiveSettings(turn.model, turn.session).replyTokens,
    )
    const loadedHistory = await loadHistory(repo, turn.session.id, window.budgetTokens)
    const { history, olderExist } = loadedHistory
    const character = characterOf(turn.session)
    const prompt = buildPrompt({
      character,
      userName: turn.session.username,
      persona: turn.session.personaDescription,
      authorNote: authorNoteOf(turn.session),
      memoryNote: turn.session.memoryNote,
      history,
      olderExist,
      olderCharacterMessages: await olderCharacterMessages(repo, turn.session.id, loadedHistory, character.lorebook),
      budgetTokens: window.budgetTokens,
      promptStyle: turn.model.promptStyle,
      language: chatLanguage(turn.session.language, turn.locale),
    })
    const result = await resultOf(turn, reply, usageOf(prompt, turn.model, turn.plan, window), {
      stopped: reply.status === 'interrupted',
      replayed: true,
    })
    return { kind: 'done', result }
  }

  /**
   * Asks the model and stores what comes back. Runs inside the session's slot. `loaded`: the
   * history, when the caller read it already. While it runs, the model's endpoint counts as busy:
   * a memory summary there gives way (ADR 034).
   */
  async function generate(turn: Turn, loaded?: LoadedHistory): Promise<TurnOutcome> {
    // The prompt and the stored reply are counted synchronously (models/tokens.ts, ADR 067).
    await tokenizerReady()
    const started = activity?.replyStarted(turn.model)
    try {
      // A summary it interrupted has left the server first (model-activity.ts).
      await started?.ready
      return await generateReply(turn, loaded)
    } finally {
      started?.end()
    }
  }

  async function generateReply(turn: Turn, loaded?: LoadedHistory): Promise<TurnOutcome> {
    const { session, model, plan, hooks, slot } = turn
    const sample = turn.userMessage?.content ?? session.lastMessagePreview ?? ''
    const fit = await modelContext(model, sample)
    // The chat's temperature and reply length, clamped to this model's bounds now (ADR 033).
    const settings = effectiveSettings(model, session)
    const window = contextWindow(plan.memoryK, fit.contextTokens, settings.replyTokens)
    const { continuing } = turn
    const read =
      loaded ??
      (await loadHistory(repo, session.id, window.budgetTokens, continuing ? undefined : (turn.targetId ?? undefined)))
    const { olderExist } = read
    // Continue: the prompt without the reply it extends, which goes last as the model's own turn.
    const told = continuing ? read.history.filter((m) => m.id !== continuing.id) : read.history
    // A scene (ADR 052): the reply is its speaker's, with its own card and the others' lines named.
    const cast = await scenes?.castFor({
      session,
      history: told,
      requested: turn.speaker,
      keepOf: continuing
        ? { speakerRoleId: continuing.speakerRoleId }
        : turn.targetId !== null
          ? { messageId: turn.targetId }
          : null,
    })
    const character = cast?.character ?? characterOf(session)
    const history = cast?.history ?? told
    const promptInput = {
      sceneNote: cast?.note,
      character,
      userName: session.username,
      persona: session.personaDescription,
      authorNote: authorNoteOf(session),
      memoryNote: session.memoryNote,
      olderExist,
      olderCharacterMessages: await olderCharacterMessages(repo, session.id, read, character.lorebook),
      budgetTokens: window.budgetTokens - (continuing?.tokens ?? 0),
      promptStyle: model.promptStyle,
      language: chatLanguage(session.language, turn.locale),
    }
    const prompt = buildPrompt({ ...promptInput, history })
    /** Whether the model reasoned: a reply that is only reasoning fails with its own code. */
    let reasoned = false
    /** Our count of the prompt last sent: the server's count of it corrects ours (ADR 030). */
    let sentTokens = 0
    const sampling = samplingParams(model, { user: session.username, char: character.name })
    const stop = cast ? sceneStops(sampling.stop, cast.stops) : sampling.stop
    if (stop) sampling.stop = stop
    const ask = (built: typeof prompt) => {
      sentTokens = built.usedTokens + (continuing?.tokens ?? 0)
      return streamChat({
        model,
        messages: continuing ? continuationMessages(built.messages, continuing.content, model) : built.messages,
        signal: slot.signal,
        ...timeLimitsOf(model, timeoutMs, streamLimits),
        maxTokens: window.replyReserveTokens,
        user: opaqueUserId(turn.userId),
        // The operator's generation settings and stop strings for this chat's names (MODELS_FILE).
        extraBody: {
          ...sampling,
          ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
          ...reasoningFields(model),
        },
        // Shown while it streams, stored nowhere (ADR 031).
        onReasoning: (text) => {
          firstTokenAt ??= performance.now()
          reasoned ||= text.trim() !== ''
          hooks.onReasoning?.(text)
        },
      })
    }
    // The model is asked first and the start event written while the request travels: the time to
    // the first token does not wait for it.
    const askedAt = performance.now()
    /** When the first token (text or reasoning) came: the time to first token of ADR 057. */
    let firstTokenAt: number | undefined
    const ended = (outcome: ReplyOutcome) =>
      recordReply?.(model.id, outcome, firstTokenAt === undefined ? null : firstTokenAt - askedAt)
    let stream = ask(prompt)
    const first = stream.next()
    // Awaited below; this only keeps a failure that comes before then from counting as unhandled.
    first.catch(() => {})
    try {
      hooks.onStart({
        sessionId: session.id,
        userMessage: turn.userMessage ? toChatMessage(turn.userMessage) : null,
        modelId: model.id,
        replayed: false,
        ...(cast ? { speaker: cast.speaker } : {}),
      })
    } catch (error) {
      void stream.return({ finishReason: 'aborted', text: '' }).catch(() => {})
      throw error
    }

    let text = ''
    let failure: LlmError | undefined
    let finishReason = ''
    for (let attempt = 0, next = first; ; attempt++) {
      // llama.cpp streams a continued reply from its start: what was there already is not sent again.
      const echo = continuing ? createEchoStripper(continuing.content) : undefined
      // A scene's reply that opens with its speaker's "Name:" loses it (not a Continue: that is mid-reply).
      const own = cast && !continuing ? createNameStripper(cast.speaker.name) : undefined
      try {
        let step = await next
        try {
          for (; !step.done; step = await stream.next()) {
            firstTokenAt ??= performance.now()
            const echoed = echo ? echo.push(step.value) : step.value
            const piece = own ? own.push(echoed) : echoed
            if (!piece) continue
            text += piece
            hooks.onDelta(piece)
          }
          const rest = own ? own.push(echo?.flush() ?? '') + own.flush() : echo?.flush()
          if (rest) {
            text += rest
            hooks.onDelta(rest)
          }
          finishReason = step.value.finishReason
          // No count of the whole prompt here: ours, converted as the window was (modelContext).
          const { promptTokens } = step.value
          if (promptTokens) recordPromptUsage(model, sample, sentTokens * fit.serverTokensPerOurs, promptTokens)
        } finally {
          // As `for await` does when its body throws: the call is ended (and its connection released).
          if (!step.done) await stream.return({ finishReason: 'aborted', text })
        }
      } catch (error) {
        if (!(error instanceof LlmError)) throw error
        failure = error
      }
      // The server's context is smaller than the window assumed: trimmed once and sent again
      // (issue 18 item 8), before any text came.
      if (attempt > 0 || failure?.reason !== 'context_too_long' || text) break
      log({ sessionId: session.id, modelId: model.id, err: failure }, 'prompt refused as too long: trimmed, retrying')
      failure = undefined
      // The server's context is smaller than learned: asked again now, for the turns after this one.
      void recordContextExceeded(model, sample, 0).catch(() => {})
      const smaller = buildPrompt({
        ...promptInput,
        history,
        budgetTokens: Math.floor(promptInput.budgetTokens * CONTEXT_RETRY_SHARE),
      })
      stream = ask(smaller)
      next = stream.next()
    }
    if (!failure && !text.trim()) {
      // A thinking model whose think block never closed (DeepSeek-R1 templates always open one):
      // its reasoning was shown, never stored (ADR 031); the user's message stays for a retry.
      failure = reasoned
        ? new LlmError('invalid', `The model only reasoned (finish reason ${finishReason || 'none'})`, {
            reason: 'reasoning_only',
          })
        : new LlmError('invalid', 'The model sent an empty reply')
    }

    const toStore = {
      sessionId: session.id,
      messageId: turn.targetId,
      content: text,
      tokens: countTokens(text),
      modelId: model.id,
      requestId: turn.requestId,
      speakerRoleId: cast?.speakerRoleId ?? null,
    }
    const userMessageId = turn.userMessage?.id ?? null
    /** The user's balance when the statement storing the reply read it too (a reply that spends nothing). */
    let balance: number | undefined
    /** Stores the reply, or (Continue) what came appended to the reply it extends. */
    const store = async (
      status: MessageStatus,
      diamondsSpent: number,
      within?: (tx: Tx, swipeId: number) => Promise<unknown>,
    ): Promise<ChatMessageRow> => {
      if (!continuing) {
        const stored = await repo.storeReply({ ...toStore, status, diamondsSpent }, within)
        balance = stored.balance
        return stored.message
      }
      const addition = joinContinuation(continuing.content, text, model)
      const extended =
        continuing.swipeId === null
          ? null
          : await repo.extendReply(
              {
                sessionId: session.id,
                messageId: continuing.id,
                swipeId: continuing.swipeId,
                addition,
                tokens: countTokens(continuing.content + addition),
                status,
                modelId: model.id,
                diamondsSpent,
              },
              within,
            )
      if (!extended) throw AppError.conflict('The reply was changed while it was continued.')
      return extended
    }

    if (!failure) {
      const cost = turn.price
      let reply: ChatMessageRow
      try {
        // The hold's diamonds come back and are spent on this reply, in the transaction storing it.
        // Cut at its length: delivered, so paid like a complete reply; Continue is another reply (ADR 031).
        const status = finishReason === 'length' ? ('cut' as const) : ('complete' as const)
        // A continuation is paid under its own reference: the alternative's `chat:<id>` is taken.
        const reference = (swipeId: number) =>
          continuing ? `chat-continue:${swipeId}:${randomUUID()}` : `chat:${swipeId}`
        reply = turn.reservation
          ? await turn.reservation.commit((pay) =>
              store(status, cost, (tx: Tx, swipeId: number) => pay(tx, reference(swipeId))),
            )
          : await store(status, cost)
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
              reason: null,
              retryable: false,
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
      memory.schedule(session, next, promptInput.language)
      const result = await resultOf(turn, reply, usageOf(next, model, plan, window), {
        stopped: false,
        replayed: false,
        speaker: cast?.speaker,
        balance,
      })
      ended('ok')
      return { kind: 'done', result }
    }

    const stored = text.trim() ? await store('interrupted', 0) : null
    const reply = stored ? { ...toChatMessage(stored), ...(cast ? { speaker: cast.speaker } : {}) } : null
    const reason = slot.reason()
    if (failure.kind === 'aborted' && reason !== 'shutdown') {
      ended('stopped')
      if (!stored) return { kind: 'stopped', result: null, reply: null }
      const next = buildPrompt({ ...promptInput, history: [...history, toHistory(stored)] })
      const result = await resultOf(turn, stored, usageOf(next, model, plan, window), {
        stopped: true,
        replayed: false,
        speaker: cast?.speaker,
        balance,
      })
      return { kind: 'stopped', result, reply }
    }
    const shutdown = reason === 'shutdown'
    const info = { sessionId: session.id, modelId: model.id, kind: failure.kind, reason: failure.reason, err: failure }
    // What the operator can fix (a refusal of the provider's) at warn, with the provider's own words.
    if ((failure.kind === 'provider' || failure.reason === 'reasoning_only') && !shutdown) {
      warn({ ...info, status: failure.status, hint: OPERATOR_HINTS[failure.reason] }, 'chat reply failed')
    } else log(info, 'chat reply failed')
    ended(failure.kind)
    return failedTurn(failure, shutdown, { partialKept: Boolean(stored), reply, userMessageId })
  }

  return { generate, replay }
}

export type Generation = ReturnType<typeof createGeneration>
