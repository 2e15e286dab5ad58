import type { Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { modelContext } from '#server/modules/models/model-server-info.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { effectiveSettings } from '#server/modules/models/user-settings.ts'
import type { ChatMessageRow, ChatRepo, SessionView } from './chat.repo.ts'
import {
  checkText,
  HISTORY_PAGE,
  invalidSession,
  replyInProgress,
  requireCharacter,
  type TurnHooks,
  type TurnOutcome,
  toHistory,
  UUID,
} from './chat-views.ts'
import type { Generation, Turn } from './generation.ts'
import { type LoadedHistory, loadHistory } from './history.ts'
import { contextWindow, type HistoryMessage } from './prompt.ts'
import type { Scenes } from './scenes.ts'
import type { Slot, TurnSlots } from './turn-slots.ts'

/**
 * The one send path (docs/architecture.md, "The send path"). Every turn that asks the model goes
 * through the same stages:
 *
 *   1. load the turn's context (the session, with the plan its user holds),
 *   2. the entitlement decision (the character is there, the plan allows the model, its price),
 *   3. the session's one slot; a repeat of a finished request is replayed here, unpaid,
 *   4. the price reserved (entitlements), then what the reply answers stored,
 *   5. build the prompt, generate, store the reply and settle its price (generation.ts).
 *
 * Send and regenerate differ only in stages 1, 3 and 4 (their `TurnSteps`). Edit-and-resend is an
 * edit (swipes-edits.ts) followed by a regenerate, which answers the edited last message; there is
 * a Continue (ADR 031) is a regenerate that extends the last reply instead of adding an alternative. The usual send to a free model runs stages 1-4 as one statement (ADR 020).
 */

/** What a turn answers: a reply already stored for this request (replayed), or a new one. */
type Answer = { replay: ChatMessageRow } | { generate: LoadedHistory | undefined }

/** The stages a kind of turn fills in. */
type TurnSteps = {
  /** Stage 3, before any price is reserved: a recognised repeat to replay, or undefined to go on. */
  before?(turn: Turn): Promise<{ replay: ChatMessageRow } | undefined>
  /** Stage 4, the price reserved: stores what the reply answers; the history when it was read. */
  after(turn: Turn): Promise<Answer>
}

export type TurnPipelineDeps = {
  repo: Pick<
    ChatRepo,
    | 'sendFree'
    | 'sendContext'
    | 'findSession'
    | 'recentMessages'
    | 'insertUserMessage'
    | 'findUserMessageByRequest'
    | 'messageAfter'
    | 'findSwipeByRequest'
  >
  entitlements: Pick<Entitlements, 'planOf' | 'decideTurn' | 'withReservation' | 'freeSendRules' | 'isFreeModel'>
  slots: Pick<TurnSlots, 'withSlot' | 'busy'>
  generation: Generation
  /** Group scenes (ADR 052): a "speak" names a member. */
  scenes?: Pick<Scenes, 'requireMember'> | undefined
}

type SendInput = {
  sessionId: string
  message: string
  chatModelId?: string | undefined
  requestId?: string | undefined
  /** The interface's language of the request (ADR 038). */
  locale?: Locale | undefined
  /** In a scene (ADR 052): the member who answers; else the scene's mode chooses. */
  speaker?: string | undefined
}
type RegenerateInput = {
  sessionId: string
  chatModelId?: string | undefined
  requestId?: string | undefined
  locale?: Locale | undefined
}
type SpeakInput = RegenerateInput & { speaker: string }

export function createTurnPipeline({ repo, entitlements, slots, generation, scenes }: TurnPipelineDeps) {
  /** Stage 2: may the user take this turn, with which plan and model. Thrown refusals store nothing. */
  function decide(session: SessionView, chatModelId: string | undefined) {
    requireCharacter(session)
    return entitlements.decideTurn(entitlements.planOf(session.paidPlanId), chatModelId, session.modelId)
  }

  /** Stages 3-5, in the session's slot. */
  async function answer(turn: Turn, steps: TurnSteps): Promise<TurnOutcome> {
    const early = await steps.before?.(turn)
    if (early) return generation.replay(turn, early.replay)
    // The turn carries its entitlement (plan, model, price).
    return entitlements.withReservation(turn.userId, turn, async (reservation) => {
      turn.reservation = reservation
      const ready = await steps.after(turn)
      return 'replay' in ready ? generation.replay(turn, ready.replay) : generation.generate(turn, ready.generate)
    })
  }

  /** Stages 1-5 for a turn whose context `session` was read outside the slot. */
  function run(
    userId: string,
    session: SessionView,
    input: {
      chatModelId?: string | undefined
      requestId?: string | undefined
      locale?: Locale | undefined
      speaker?: string | undefined
    },
    hooks: TurnHooks,
    steps: (turn: Turn) => TurnSteps,
  ) {
    const { plan, model, price } = decide(session, input.chatModelId)
    return slots.withSlot(session.id, hooks.signal, (slot) => {
      const turn = newTurn({
        userId,
        session,
        plan,
        model,
        price,
        requestId: input.requestId ?? null,
        hooks,
        slot,
        locale: input.locale ?? null,
        speaker: input.speaker ?? null,
      })
      return answer(turn, steps(turn))
    })
  }

  const newTurn = (fields: Omit<Turn, 'targetId' | 'userMessage' | 'reservation' | 'continuing'>): Turn => ({
    ...fields,
    targetId: null,
    userMessage: null,
    reservation: null,
    continuing: null,
  })

  /** The user's message, stored, and the history the prompt is built from (`recent`: its newest page). */
  async function withUserMessage(turn: Turn, message: ChatMessageRow, recent?: HistoryMessage[]): Promise<Answer> {
    turn.userMessage = message
    const fit = await modelContext(turn.model, message.content)
    const { replyTokens } = effectiveSettings(turn.model, turn.session)
    const { budgetTokens } = contextWindow(turn.plan.memoryK, fit.contextTokens, replyTokens)
    // The newest messages were read before the insert; older pages are read only if they fit.
    const earlier = await loadHistory(repo, turn.session.id, budgetTokens, undefined, recent)
    const history = [...earlier.history.filter((m) => m.id < message.id), toHistory(message)]
    return { generate: { history, olderExist: earlier.olderExist } }
  }

  /**
   * The same send again (its answer was lost): the stored reply to replay, `generate` when the
   * reply was never stored, undefined when no earlier call stored the message.
   */
  async function repeatOf(turn: Turn, requestId: string): Promise<Answer | undefined> {
    const earlier = await repo.findUserMessageByRequest(turn.session.id, requestId)
    if (!earlier) return undefined
    turn.userMessage = earlier
    const next = await repo.messageAfter(turn.session.id, earlier.id)
    if (next?.author === 'assistant') return { replay: next }
    if (next) throw AppError.conflict('The conversation has moved on since this message.')
    return { generate: undefined }
  }

  /**
   * The usual send (a model that costs nothing, no reply running): stages 1-4 are one statement
   * in the session's slot (ADR 020). Undefined when that statement stored nothing (a refusal, a
   * repeat, another model): the caller takes the general path, which says why.
   */
  async function sendFree(userId: string, input: SendInput, sessionId: string, hooks: TurnHooks, slot: Slot) {
    const requestId = input.requestId ?? null
    const sent = await repo.sendFree({
      sessionId,
      userId,
      content: input.message,
      tokens: countTokens(input.message),
      requestId,
      chatModelId: input.chatModelId ?? null,
      ...entitlements.freeSendRules,
      limit: HISTORY_PAGE,
    })
    if (!sent) return undefined
    const { plan, model, price } = decide(sent.session, input.chatModelId)
    if (price !== 0) throw new Error('a premium model took the path of free ones')
    const turn = newTurn({
      userId,
      session: sent.session,
      plan,
      model,
      price,
      requestId,
      hooks,
      slot,
      locale: input.locale ?? null,
      speaker: input.speaker ?? null,
    })
    return answer(turn, { after: (t) => withUserMessage(t, sent.userMessage, sent.recent) })
  }

  return {
    /**
     * Sends the user's message and generates the reply. Refusals (session, length, model, plan,
     * diamonds, a reply already running) are thrown before anything is stored.
     */
    async send(userId: string, input: SendInput, hooks: TurnHooks): Promise<TurnOutcome> {
      checkText(input.message)
      if (!UUID.test(input.sessionId)) throw invalidSession()
      // The message is counted when it is stored; only the first send after start waits for the load.
      await tokenizerReady()
      // Everything before the model call adds to the time to first token: the usual send is one
      // statement; anything it does not store (refusals, repeats, premium models) goes below.
      const sessionId = input.sessionId.toLowerCase()
      const free = input.chatModelId === undefined || entitlements.isFreeModel(input.chatModelId)
      if (free && !slots.busy(sessionId)) {
        const outcome = await slots.withSlot(sessionId, hooks.signal, (slot) =>
          sendFree(userId, input, sessionId, hooks, slot),
        )
        if (outcome) return outcome
      }
      // Stage 1 in one read: the session with its plan, a repeat's message id, the newest messages.
      const requestId = input.requestId ?? null
      const context = await repo.sendContext(input.sessionId, userId, requestId, HISTORY_PAGE)
      if (!context) throw invalidSession()
      return run(userId, context.session, input, hooks, (turn) => {
        let stored = false
        return {
          async before() {
            if (!requestId || context.earlierId === null) return undefined
            const repeat = await repeatOf(turn, requestId)
            if (repeat && 'replay' in repeat) return { replay: repeat.replay }
            // Stored, never answered: generated now, paid like any other reply.
            stored = repeat !== undefined
            return undefined
          },
          async after() {
            if (stored) return { generate: undefined }
            const message = await repo.insertUserMessage({
              sessionId: turn.session.id,
              content: input.message,
              tokens: countTokens(input.message),
              requestId,
              modelId: turn.model.id,
            })
            if (message) return withUserMessage(turn, message, context.recent)
            // The request id was stored since the read: a repeat that just finished here, or one
            // running on another instance.
            const repeat = requestId ? await repeatOf(turn, requestId) : undefined
            if (repeat) return repeat
            throw replyInProgress()
          },
        }
      })
    },

    /**
     * A new reply to the end of the conversation: another alternative of the last reply, or the
     * reply a last user message never got (the retry after a failure, and the resend after an edit).
     */
    async regenerate(userId: string, input: RegenerateInput, hooks: TurnHooks): Promise<TurnOutcome> {
      if (!UUID.test(input.sessionId)) throw invalidSession()
      const session = await repo.findSession(input.sessionId, userId)
      if (!session) throw invalidSession()
      return run(userId, session, input, hooks, (turn) => ({
        async before() {
          const [last, previous] = await repo.recentMessages(session.id, { limit: 2 })
          if (!last) throw AppError.badRequest('There is nothing to reply to yet.')
          if (last.author !== 'assistant') return undefined
          if (turn.requestId && (await repo.findSwipeByRequest(last.id, turn.requestId))) return { replay: last }
          // A greeting alone has nothing to answer: its alternatives are the character's greetings.
          if (!previous) throw AppError.badRequest('Choose among the greetings instead.')
          turn.targetId = last.id
          return undefined
        },
        after: async () => ({ generate: undefined }),
      }))
    },

    /**
     * "Let … speak" in a scene (ADR 052): a new reply by that member with no new user message,
     * paid like any reply. A repeat of the same request replays the reply it stored.
     */
    async speak(userId: string, input: SpeakInput, hooks: TurnHooks): Promise<TurnOutcome> {
      if (!UUID.test(input.sessionId)) throw invalidSession()
      const session = await repo.findSession(input.sessionId, userId)
      if (!session) throw invalidSession()
      await scenes?.requireMember(session, input.speaker)
      return run(userId, session, input, hooks, (turn) => ({
        async before() {
          const [last] = await repo.recentMessages(session.id, { limit: 1 })
          if (!last) throw AppError.badRequest('There is nothing to reply to yet.')
          if (last.author === 'assistant' && turn.requestId && (await repo.findSwipeByRequest(last.id, turn.requestId)))
            return { replay: last }
          return undefined
        },
        after: async () => ({ generate: undefined }),
      }))
    },

    /**
     * Continue (ADR 031): the model extends the last reply (one cut at its length, stopped, or any
     * other), appended to the alternative shown. Paid like a reply of its own.
     */
    async continue(userId: string, input: RegenerateInput, hooks: TurnHooks): Promise<TurnOutcome> {
      if (!UUID.test(input.sessionId)) throw invalidSession()
      const session = await repo.findSession(input.sessionId, userId)
      if (!session) throw invalidSession()
      // A continuation is never replayed: its request id names nothing stored.
      return run(userId, session, { ...input, requestId: undefined }, hooks, (turn) => ({
        async before() {
          const [last, previous] = await repo.recentMessages(session.id, { limit: 2 })
          if (last?.author !== 'assistant' || !last.content.trim()) {
            throw AppError.badRequest('There is no reply to continue.')
          }
          // A greeting is the character's own text, not the model's.
          if (!previous) throw AppError.badRequest('Choose among the greetings instead.')
          turn.continuing = last
          return undefined
        },
        after: async () => ({ generate: undefined }),
      }))
    },
  }
}

export type TurnPipeline = ReturnType<typeof createTurnPipeline>
