import {
  CHAT_MESSAGE_MAX_LENGTH,
  type ChatMessage,
  type ChatReply,
  type ChatSessionDetail,
  type ChatSessionList,
  type ChatSessionSummary,
  type ContextUsage,
  INVALID_SESSION_MESSAGE,
  MEMORY_NOTE_MAX_LENGTH,
  type ModelFailureKind,
  messageLength,
} from '#contracts/chat.ts'
import { AppError } from '#server/lib/errors.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements, Reservation, TurnEntitlement } from '#server/modules/entitlements/entitlements.service.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import { completeChat, LlmError, streamChat } from '#server/modules/models/llm-client.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import type { ChatMessageRow, ChatRepo, SessionView, Tx } from './chat.repo.ts'
import {
  buildPrompt,
  type Character,
  contextWindow,
  type HistoryMessage,
  messageCost,
  type Prompt,
  replaceMacros,
  SUMMARY_MAX_TOKENS,
  summaryPrompt,
} from './prompt.ts'

export type ChatDeps = {
  repo: ChatRepo
  /** What the user may do and what it costs: plan, models, prices, the diamonds reserved (ADR 027). */
  entitlements: Pick<
    Entitlements,
    'planOf' | 'modelFor' | 'decideTurn' | 'withReservation' | 'freeSendRules' | 'isFreeModel' | 'summaryModel'
  >
  diamonds: Pick<DiamondsService, 'balanceOf'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
  /** Deadline of each model call (LLM_TIMEOUT_MS). */
  timeoutMs: number
  log: (info: Record<string, unknown>, msg: string) => void
  /** Memory summaries run as durable jobs (ADR 017). */
  jobs: Pick<JobQueue, 'enqueue'>
}

/** What the caller of a send or a regeneration hears while it runs. */
export type TurnHooks = {
  /** Fires (the client gone, a stop) to end the reply early; what came is kept. */
  signal?: AbortSignal | undefined
  /** The user's message is stored (or the repeat recognised) and the model is being asked. */
  onStart(start: { sessionId: string; userMessage: ChatMessage | null; modelId: string; replayed: boolean }): void
  onDelta(text: string): void
}

export type ErrorEventData = {
  code: string
  kind: ModelFailureKind | null
  message: string
  partialKept: boolean
  reply: ChatMessage | null
  userMessageId: number | null
}

/**
 * How a turn ended, once it started (failures before it starts are thrown as AppError).
 * `failed` carries both the AppError for JSON callers and the `error` event for streams.
 */
export type TurnOutcome =
  | { kind: 'done'; result: ChatReply }
  | { kind: 'stopped'; result: ChatReply | null; reply: ChatMessage | null }
  | { kind: 'failed'; error: AppError; event: ErrorEventData }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Rows read per query while filling a context window. */
const HISTORY_PAGE = 200
/** Most of the conversation one summary call reads. */
const SUMMARY_INPUT_TOKENS = 3000
/** Summary calls one trigger may make to catch up (a plan that shrank drops many messages at once). */
const SUMMARY_ROUNDS = 4
/**
 * A premium reply's hold still open this long after the model call's deadline was left by a process
 * that died mid-reply: the `stale-holds` job refunds it (ADR 024). A live reply never gets there.
 */
const HOLD_GRACE_MS = 5 * 60_000

export const invalidSession = () => new AppError(404, 'INVALID_SESSION', INVALID_SESSION_MESSAGE)
/**
 * A turn needs the chat's character: gone (deleted), or withheld because its creator made it private
 * (only its creator may chat with it then). The user's messages stay readable either way.
 */
function requireCharacter(session: Pick<SessionView, 'rolePublicId' | 'roleWithheld'>) {
  if (session.rolePublicId) return
  if (session.roleWithheld) {
    throw new AppError(
      403,
      'CHARACTER_UNAVAILABLE',
      'The character of this chat is private now: only its creator can chat with it. Your messages stay readable.',
    )
  }
  throw AppError.conflict('The character of this chat no longer exists.')
}
const replyInProgress = () =>
  new AppError(409, 'REPLY_IN_PROGRESS', 'A reply is being written in this chat. Wait for it or stop it.')

export function toChatMessage(row: ChatMessageRow): ChatMessage {
  return {
    id: row.id,
    author: row.author,
    content: row.content,
    status: row.status,
    modelId: row.modelId,
    diamondsSpent: row.diamondsSpent,
    swipeIndex: row.swipeIndex,
    swipeCount: row.swipeCount,
    createdAt: row.createdAt.toISOString(),
    editedAt: row.editedAt?.toISOString() ?? null,
  }
}

const toHistory = (row: Pick<ChatMessageRow, 'id' | 'author' | 'content' | 'tokens'>): HistoryMessage => ({
  id: row.id,
  author: row.author,
  content: row.content,
  tokens: row.tokens,
})

function characterOf(session: SessionView): Character {
  return {
    name: session.roleName ?? '',
    description: session.roleDescription ?? '',
    personality: session.rolePersonality ?? '',
    scenario: session.roleScenario ?? '',
    introduction: session.roleIntroduction ?? '',
    exampleDialogue: session.roleExampleDialogue ?? '',
    systemPrompt: session.roleSystemPrompt ?? '',
    postHistoryInstructions: session.rolePostHistoryInstructions ?? '',
    lorebook: session.roleCharacterBook,
  }
}

function failureMessage(error: LlmError): string {
  switch (error.kind) {
    case 'timeout':
      return 'The model did not answer in time.'
    case 'aborted':
      return 'The reply was stopped.'
    case 'cut':
      return 'The connection to the model broke off mid-reply.'
    case 'invalid':
      return 'The model sent an answer that could not be used.'
    default:
      return 'The model could not reply.'
  }
}

/**
 * Chat: sessions with a character, replies streamed from the model, alternatives (swipes), edits,
 * and the memory that follows the user's plan. Rules (ADR 009): the user's message is stored before
 * the model is asked; a reply is stored when complete, or as `interrupted` with the text received
 * when it breaks off; diamonds are spent in the transaction that stores a complete reply.
 */
export function createChatService(deps: ChatDeps) {
  const { repo, entitlements, diamonds, log } = deps

  /** The generation running in each session (on this instance): one at a time, and the stop button. */
  const active = new Map<
    string,
    { controller: AbortController; reason: 'stop' | 'shutdown' | undefined; done?: Promise<unknown> }
  >()
  /** Work that must finish before the database closes. */
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

  async function requireSession(sessionId: string, userId: string): Promise<SessionView> {
    if (!UUID.test(sessionId)) throw invalidSession()
    const session = await repo.findSession(sessionId, userId)
    if (!session) throw invalidSession()
    return session
  }

  const modelFor = (chatModelId: string | undefined, session: Pick<SessionView, 'modelId'>): ModelConfig =>
    entitlements.modelFor(chatModelId, session.modelId)

  function checkText(text: string) {
    const length = messageLength(text)
    if (length > CHAT_MESSAGE_MAX_LENGTH) {
      throw new AppError(400, 'MESSAGE_TOO_LONG', `A message may have at most ${CHAT_MESSAGE_MAX_LENGTH} characters.`, {
        maxLength: CHAT_MESSAGE_MAX_LENGTH,
        length,
      })
    }
    if (!text.trim()) throw AppError.badRequest('The message is empty.')
  }

  /**
   * Recent messages (before `beforeId` when given), oldest first, until they surely overflow `budget`.
   * `firstPage`: the newest HISTORY_PAGE messages, when the caller read them already.
   */
  async function loadHistory(sessionId: string, budget: number, beforeId?: number, firstPage?: HistoryMessage[]) {
    const newestFirst: HistoryMessage[] = []
    let used = 0
    let cursor = beforeId
    let page = firstPage
    for (;;) {
      const rows = page ?? (await repo.recentMessages(sessionId, { before: cursor, limit: HISTORY_PAGE }))
      page = undefined
      for (const row of rows) {
        newestFirst.push(toHistory(row))
        used += messageCost(row)
        if (used > budget) return { history: newestFirst.reverse(), olderExist: true }
      }
      const last = rows.at(-1)
      if (rows.length < HISTORY_PAGE || !last) return { history: newestFirst.reverse(), olderExist: false }
      cursor = last.id
    }
  }

  function usageOf(
    prompt: Prompt,
    model: ModelConfig,
    plan: { memoryK: number },
    window: ReturnType<typeof contextWindow>,
  ): ContextUsage {
    return {
      modelId: model.id,
      memoryK: plan.memoryK,
      windowTokens: window.windowTokens,
      replyReserveTokens: window.replyReserveTokens,
      budgetTokens: window.budgetTokens,
      usedTokens: prompt.usedTokens,
      includedMessages: prompt.included.length,
      trimmed: prompt.trimmed,
    }
  }

  async function viewerSeesAdult(userId: string, adultCookie: boolean) {
    return deps.catalogue.adultConfirmed(userId, adultCookie)
  }

  function roleOf(
    row: Pick<
      SessionView,
      'rolePublicId' | 'roleName' | 'roleAvatarImageId' | 'roleAvatarBlurredImageId' | 'roleIsAdult'
    >,
    adultOk: boolean,
  ) {
    if (!row.rolePublicId) return null
    return {
      id: row.rolePublicId,
      name: row.roleName ?? '',
      avatar: imageUrl(row.roleIsAdult && !adultOk ? row.roleAvatarBlurredImageId : row.roleAvatarImageId),
    }
  }

  function summaryOf(row: SessionView | Awaited<ReturnType<ChatRepo['listSessions']>>[number], adultOk: boolean) {
    return {
      id: row.id,
      role: roleOf(row, adultOk),
      lastMessage: row.lastMessagePreview,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    } satisfies ChatSessionSummary
  }

  async function detailOf(
    session: SessionView,
    userId: string,
    options: { chatModelId?: string | undefined; adultCookie: boolean },
  ): Promise<ChatSessionDetail> {
    const model = modelFor(options.chatModelId, session)
    const plan = entitlements.planOf(session.paidPlanId)
    const adultOk = await viewerSeesAdult(userId, options.adultCookie)
    const window = contextWindow(plan.memoryK, model.contextTokens)
    const { history, olderExist } = await loadHistory(session.id, window.budgetTokens)
    const prompt = buildPrompt({
      character: characterOf(session),
      userName: session.username,
      memoryNote: session.memoryNote,
      history,
      olderExist,
      budgetTokens: window.budgetTokens,
    })
    return {
      ...summaryOf(session, adultOk),
      modelId: session.modelId,
      memory: {
        note: session.memoryNote,
        coversThroughMessageId: session.memoryThroughId,
        updatedAt: session.memoryUpdatedAt?.toISOString() ?? null,
      },
      context: usageOf(prompt, model, plan, window),
      plan: { planId: plan.planId, memoryK: plan.memoryK, premiumModels: plan.premiumModels },
    }
  }

  /**
   * Holds the session's one generation slot for `run`, with a signal that fires on the caller's
   * signal, a stop call or shutdown.
   */
  async function withSlot<T>(
    sessionId: string,
    external: AbortSignal | undefined,
    run: (slot: { signal: AbortSignal; reason: () => 'stop' | 'shutdown' | undefined }) => Promise<T>,
  ): Promise<T> {
    if (active.has(sessionId)) throw replyInProgress()
    const entry: { controller: AbortController; reason: 'stop' | 'shutdown' | undefined; done?: Promise<unknown> } = {
      controller: new AbortController(),
      reason: undefined,
    }
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
  }

  type Turn = {
    userId: string
    session: SessionView
    model: ModelConfig
    plan: TurnEntitlement['plan']
    /** Add an alternative to this reply; null: a new reply. */
    targetId: number | null
    userMessage: ChatMessageRow | null
    requestId: string | null
    hooks: TurnHooks
    slot: { signal: AbortSignal; reason: () => 'stop' | 'shutdown' | undefined }
    /** A premium reply's price, reserved before the model is asked; set by `paid`. */
    reservation?: Reservation | null | undefined
  }

  /**
   * Runs a turn that asks the model, with a premium model's price reserved first (ADR 024): the
   * balance goes down before any text is written, so parallel turns cannot all spend the same
   * diamonds; one the balance does not cover is refused with 402 before anything is stored or
   * asked. A stored complete reply settles the hold; anything else (a failure, a stop, an
   * interrupted reply, a replay) refunds it, as users are told: a failed reply costs nothing.
   */
  async function paid(turn: Turn, run: () => Promise<TurnOutcome>): Promise<TurnOutcome> {
    const entitlement = {
      plan: turn.plan,
      model: turn.model,
      price: turn.model.premium ? turn.model.diamondsPerMessage : 0,
    }
    return entitlements.withReservation(turn.userId, entitlement, (reservation) => {
      turn.reservation = reservation
      return run()
    })
  }

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
    const window = contextWindow(turn.plan.memoryK, turn.model.contextTokens)
    const { history, olderExist } = await loadHistory(turn.session.id, window.budgetTokens)
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
  async function generate(
    turn: Turn,
    loaded?: { history: HistoryMessage[]; olderExist: boolean },
  ): Promise<TurnOutcome> {
    const { session, model, plan, hooks, slot } = turn
    const window = contextWindow(plan.memoryK, model.contextTokens)
    const character = characterOf(session)
    const { history, olderExist } =
      loaded ?? (await loadHistory(session.id, window.budgetTokens, turn.targetId ?? undefined))
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
      timeoutMs: deps.timeoutMs,
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
      const cost = model.premium ? model.diamondsPerMessage : 0
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
      scheduleMemory(session, next)
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

  /**
   * After a reply: messages that no longer fit the window and are not yet in the memory note are
   * summarised into it by a job (one waiting per session), so a crash or restart does not lose it.
   * The reply never waits for this; a failure to queue is logged, and the next reply queues again.
   */
  function scheduleMemory(session: SessionView, next: Prompt) {
    const oldestKept = next.included[0]?.id
    if (!next.trimmed || oldestKept === undefined) return
    if (session.memoryThroughId !== null && session.memoryThroughId >= oldestKept - 1) return
    if (shutdown.signal.aborted) return
    const payload = { sessionId: session.id, userId: session.userId, keptFromId: oldestKept }
    void track(
      deps.jobs.enqueue('chat-summary', payload, { key: `summary:${session.id}` }).catch((error: unknown) => {
        log({ sessionId: session.id, err: error }, 'memory summary could not be queued')
      }),
    )
  }

  /** Throws when the model fails, so the job is retried. */
  async function summarise(session: SessionView, keptFromId: number, signal: AbortSignal) {
    const model = entitlements.summaryModel
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
        signal: AbortSignal.any([signal, shutdown.signal]),
        timeoutMs: deps.timeoutMs,
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
    /** How old an open hold of a reply must be before the `stale-holds` job refunds it. */
    holdDeadlineMs: deps.timeoutMs + HOLD_GRACE_MS,

    /**
     * The `chat-summary` job: folds the messages before `keptFromId` that are not yet in the memory
     * note into it. Safe to run twice (the note is written only over the version it read).
     */
    async summariseMemory(job: { sessionId: string; userId: string; keptFromId: number }, signal: AbortSignal) {
      const session = await repo.findSession(job.sessionId, job.userId)
      if (!session) return // The chat was deleted meanwhile.
      await summarise(session, job.keptFromId, signal)
    },

    async createSession(userId: string, rolePublicId: string, adultCookie: boolean) {
      const role = await repo.findRoleForChat(rolePublicId)
      if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
        throw AppError.notFound('No such character')
      }
      if (role.isAdult && !(await viewerSeesAdult(userId, adultCookie))) {
        throw new AppError(403, 'FORBIDDEN', 'Confirm that you are 18 or older to chat with this character.', {
          reason: 'ADULT_CONTENT',
        })
      }
      const names = { char: role.name, user: await repo.usernameOf(userId) }
      const greetings = [role.firstMessage, ...role.alternateGreetings]
        .map((g) => replaceMacros(g, names).trim())
        .filter(Boolean)
        .map((content) => ({ content, tokens: countTokens(content) }))
      const { sessionId, firstMessage } = await repo.createSession({ userId, roleId: role.id, greetings })
      const session = await requireSession(sessionId, userId)
      return {
        ...(await detailOf(session, userId, { adultCookie })),
        firstMessage: firstMessage ? toChatMessage(firstMessage) : null,
      }
    },

    async listSessions(userId: string, page: number, pageSize: number, adultCookie: boolean): Promise<ChatSessionList> {
      const [rows, total] = await Promise.all([
        repo.listSessions(userId, (page - 1) * pageSize, pageSize),
        repo.countSessions(userId),
      ])
      const adultOk = rows.some((r) => r.roleIsAdult) ? await viewerSeesAdult(userId, adultCookie) : true
      return {
        sessions: rows.map((row) => summaryOf(row, adultOk)),
        page,
        pageSize,
        total,
        totalPages: Math.ceil(total / pageSize),
      }
    },

    async getSession(
      userId: string,
      sessionId: string,
      options: { chatModelId?: string | undefined; adultCookie: boolean },
    ): Promise<ChatSessionDetail> {
      return detailOf(await requireSession(sessionId, userId), userId, options)
    },

    async listMessages(userId: string, sessionId: string, before: number | undefined, limit: number) {
      if (!UUID.test(sessionId)) throw invalidSession()
      const found = await repo.messagePage(sessionId, userId, { before, limit: limit + 1 })
      if (!found) throw invalidSession()
      const { rows, total } = found
      const page = rows.slice(0, limit)
      return {
        items: page.map(toChatMessage),
        nextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
        total,
      }
    },

    /**
     * Sends the user's message and generates the reply. Refusals (session, length, model, plan,
     * diamonds, a reply already running) are thrown before anything is stored.
     */
    async send(
      userId: string,
      input: { sessionId: string; message: string; chatModelId?: string | undefined; requestId?: string | undefined },
      hooks: TurnHooks,
    ): Promise<TurnOutcome> {
      checkText(input.message)
      if (!UUID.test(input.sessionId)) throw invalidSession()
      const requestId = input.requestId ?? null
      // Everything before the model call adds to the time to first token. The usual send (a model
      // that costs nothing, no reply running) is one statement in the session's slot; anything that
      // statement does not store (refusals, repeats, premium models) takes the path below.
      const sessionId = input.sessionId.toLowerCase()
      if ((input.chatModelId === undefined || entitlements.isFreeModel(input.chatModelId)) && !active.has(sessionId)) {
        const outcome = await withSlot(sessionId, hooks.signal, async (slot) => {
          const content = input.message
          const sent = await repo.sendFree({
            sessionId,
            userId,
            content,
            tokens: countTokens(content),
            requestId,
            chatModelId: input.chatModelId ?? null,
            ...entitlements.freeSendRules,
            limit: HISTORY_PAGE,
          })
          if (!sent) return undefined
          const { session, userMessage } = sent
          const [plan, model] = [entitlements.planOf(session.paidPlanId), modelFor(input.chatModelId, session)]
          if (model.premium) throw new Error('a premium model took the path of free ones')
          const turn: Turn = { userId, session, model, plan, targetId: null, userMessage, requestId, hooks, slot }
          const { budgetTokens } = contextWindow(plan.memoryK, model.contextTokens)
          const earlier = await loadHistory(session.id, budgetTokens, undefined, sent.recent)
          const history = [...earlier.history.filter((m) => m.id < userMessage.id), toHistory(userMessage)]
          return generate(turn, { history, olderExist: earlier.olderExist })
        })
        if (outcome) return outcome
      }
      // One read (the session with its plan, a repeat's message id, the newest messages), one insert.
      const context = await repo.sendContext(input.sessionId, userId, requestId, HISTORY_PAGE)
      if (!context) throw invalidSession()
      const { session } = context
      requireCharacter(session)
      const { plan, model } = entitlements.decideTurn(
        entitlements.planOf(session.paidPlanId),
        input.chatModelId,
        session.modelId,
      )
      return withSlot(session.id, hooks.signal, async (slot) => {
        const turn: Turn = { userId, session, model, plan, targetId: null, userMessage: null, requestId, hooks, slot }
        /**
         * The same call again (its answer was lost): the stored outcome, or null when the reply was
         * never stored (then it is generated now); undefined when no earlier call stored anything.
         */
        const repeat = async (id: string) => {
          const earlier = await repo.findUserMessageByRequest(session.id, id)
          if (!earlier) return undefined
          turn.userMessage = earlier
          const next = await repo.messageAfter(session.id, earlier.id)
          if (next?.author === 'assistant') return replay(turn, next)
          if (next) throw AppError.conflict('The conversation has moved on since this message.')
          return null
        }
        if (requestId && context.earlierId !== null) {
          const outcome = await repeat(requestId)
          if (outcome) return outcome
          if (outcome === null) return paid(turn, () => generate(turn))
        }
        return paid(turn, async () => {
          const content = input.message
          const { budgetTokens } = contextWindow(plan.memoryK, model.contextTokens)
          const userMessage = await repo.insertUserMessage({
            sessionId: session.id,
            content,
            tokens: countTokens(content),
            requestId,
            modelId: model.id,
          })
          if (!userMessage) {
            // The request id was stored since the read: a repeat that just finished here, or one
            // running on another instance.
            const outcome = requestId ? await repeat(requestId) : undefined
            if (outcome) return outcome
            if (outcome === null) return generate(turn)
            throw replyInProgress()
          }
          turn.userMessage = userMessage
          // The newest messages were read before the insert; older pages are read only if they fit.
          const earlier = await loadHistory(session.id, budgetTokens, undefined, context.recent)
          const history = [...earlier.history.filter((m) => m.id < userMessage.id), toHistory(userMessage)]
          return generate(turn, { history, olderExist: earlier.olderExist })
        })
      })
    },

    /**
     * A new reply to the end of the conversation: another alternative of the last reply, or the
     * reply a last user message never got (the retry after a failure).
     */
    async regenerate(
      userId: string,
      input: { sessionId: string; chatModelId?: string | undefined; requestId?: string | undefined },
      hooks: TurnHooks,
    ): Promise<TurnOutcome> {
      const session = await requireSession(input.sessionId, userId)
      requireCharacter(session)
      const { plan, model } = entitlements.decideTurn(
        entitlements.planOf(session.paidPlanId),
        input.chatModelId,
        session.modelId,
      )
      return withSlot(session.id, hooks.signal, async (slot) => {
        const requestId = input.requestId ?? null
        const [last, before] = await repo.recentMessages(session.id, { limit: 2 })
        if (!last) throw AppError.badRequest('There is nothing to reply to yet.')
        const turn: Turn = { userId, session, model, plan, targetId: null, userMessage: null, requestId, hooks, slot }
        if (last.author === 'assistant') {
          if (requestId && (await repo.findSwipeByRequest(last.id, requestId))) return replay(turn, last)
          // A greeting alone has nothing to answer: its alternatives are the character's greetings.
          if (!before) throw AppError.badRequest('Choose among the greetings instead.')
          turn.targetId = last.id
        }
        return paid(turn, () => generate(turn))
      })
    },

    /** Stops the reply being written in the session; false when none is. */
    async stop(userId: string, sessionId: string): Promise<boolean> {
      await requireSession(sessionId, userId)
      const entry = active.get(sessionId)
      if (!entry) return false
      entry.reason ??= 'stop'
      entry.controller.abort()
      return true
    },

    async listSwipes(userId: string, sessionId: string, messageId: number) {
      await requireSession(sessionId, userId)
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      const swipes = await repo.listSwipes(messageId)
      return {
        messageId,
        selectedIndex: message.swipeIndex,
        swipes: swipes.map((s, index) => ({
          index,
          content: s.content,
          status: s.status,
          modelId: s.modelId,
          createdAt: s.createdAt.toISOString(),
        })),
      }
    },

    async selectSwipe(userId: string, sessionId: string, messageId: number, swipeIndex: number) {
      await requireSession(sessionId, userId)
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      if (swipeIndex >= message.swipeCount) {
        throw AppError.badRequest('No such alternative.', { swipeCount: message.swipeCount })
      }
      const updated = await repo.selectSwipe(sessionId, messageId, swipeIndex)
      if (!updated) throw AppError.notFound('No such message')
      return toChatMessage(updated)
    },

    /** Edits one of the user's messages; the later messages go (the chat continues from it). */
    async editMessage(userId: string, sessionId: string, messageId: number, content: string) {
      await requireSession(sessionId, userId)
      checkText(content)
      if (active.has(sessionId)) throw replyInProgress()
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      if (message.author !== 'user') throw AppError.forbidden('Only your own messages can be edited.')
      const edited = await repo.editUserMessage(sessionId, messageId, content, countTokens(content))
      if (!edited) throw AppError.notFound('No such message')
      return { message: toChatMessage(edited.message), removedMessageIds: edited.removedIds }
    },

    async deleteMessage(userId: string, sessionId: string, messageId: number) {
      await requireSession(sessionId, userId)
      if (active.has(sessionId)) throw replyInProgress()
      if (!(await repo.deleteMessage(sessionId, messageId))) throw AppError.notFound('No such message')
      return { deleted: true as const }
    },

    async deleteSession(userId: string, sessionId: string) {
      await requireSession(sessionId, userId)
      // A reply being written is stopped and stored first, then goes with the rest.
      const running = active.get(sessionId)
      if (running) {
        running.reason ??= 'stop'
        running.controller.abort()
        await running.done?.catch(() => {})
      }
      if (!(await repo.deleteSession(sessionId, userId))) throw invalidSession()
      return { deleted: true as const }
    },

    async getMemory(userId: string, sessionId: string) {
      const session = await requireSession(sessionId, userId)
      return {
        note: session.memoryNote,
        coversThroughMessageId: session.memoryThroughId,
        updatedAt: session.memoryUpdatedAt?.toISOString() ?? null,
      }
    },

    async updateMemory(userId: string, sessionId: string, note: string) {
      await requireSession(sessionId, userId)
      await repo.writeMemory(sessionId, note.trim())
      return this.getMemory(userId, sessionId)
    },

    /**
     * On shutdown: replies being written stop (their text is kept as interrupted), summaries are
     * abandoned, and this resolves when their writes are done, before the database closes.
     */
    async close() {
      shutdown.abort()
      for (const entry of active.values()) {
        entry.reason ??= 'shutdown'
        entry.controller.abort()
      }
      await Promise.allSettled([...tasks])
    },
  }
}

export type ChatService = ReturnType<typeof createChatService>
