import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import type { RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { createAuthorsNote } from './authors-note.ts'
import { createChatBranches } from './branches.ts'
import type { ChatRepo } from './chat.repo.ts'
import { createChatTidy } from './chat-tidy.ts'
import { createGeneration, type GenerationDeps, type StreamLimits } from './generation.ts'
import { createImpersonate } from './impersonate.ts'
import { createMemorySummary } from './memory-summary.ts'
import { createModelActivity, type ModelActivity } from './model-activity.ts'
import type { PersonasService } from './personas/personas.service.ts'
import type { SceneMembersRepo } from './scene-members.repo.ts'
import { createScenes } from './scenes.ts'
import { createChatSessions } from './sessions.ts'
import { createSwipesEdits } from './swipes-edits.ts'
import { createTurnPipeline } from './turn-pipeline.ts'
import { createTurnSlots } from './turn-slots.ts'

export type { ErrorEventData, TurnHooks, TurnOutcome } from './chat-views.ts'
export { invalidSession, toChatMessage } from './chat-views.ts'

export type ChatDeps = {
  repo: ChatRepo
  /** The members of group scenes (ADR 052). */
  sceneMembers: SceneMembersRepo
  /** What the user may do and what it costs: plan, models, prices, the diamonds reserved (ADR 027). */
  entitlements: Pick<
    Entitlements,
    'planOf' | 'modelFor' | 'decideTurn' | 'withReservation' | 'freeSendRules' | 'isFreeModel' | 'summaryModel'
  >
  diamonds: Pick<DiamondsService, 'balanceOf'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
  /** A character's texts in the user's language: the greeting of a new chat (ADR 039). */
  texts: Pick<RoleTextsService, 'localize' | 'localizedSummaries'>
  /** Cap on each model call (LLM_TIMEOUT_MS). */
  timeoutMs: number
  /** Streamed replies: first-token and idle limits (LLM_FIRST_TOKEN_TIMEOUT_MS, LLM_IDLE_TIMEOUT_MS). */
  streamLimits?: StreamLimits | undefined
  log: (info: Record<string, unknown>, msg: string) => void
  /** Model failures an operator should act on (the provider's own reason). Default: `log`. */
  warn?: ((info: Record<string, unknown>, msg: string) => void) | undefined
  /** Memory summaries run as durable jobs (ADR 017). */
  jobs: Pick<JobQueue, 'enqueue' | 'retryNow'>
  /** Replies being written per model endpoint, shared with other background model work (machine translation, ADR 040). */
  activity?: ModelActivity | undefined
  /** The default persona a new chat takes (ADR 049); without it, the account name. */
  personas?: Pick<PersonasService, 'defaultOf' | 'setChatPersona'> | undefined
  /** How each reply ended and its time to first token, for the console's daily figures (ADR 057). */
  recordReply?: GenerationDeps['recordReply']
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
 * memory-summary.ts (the `chat-summary` job), swipes-edits.ts, branches.ts (ADR 050), turn-slots.ts
 * (one reply per chat, stop, shutdown), chat-tidy.ts (search, rename, pin, delete with undo). Plans,
 * models and prices are entitlements' (server/modules/entitlements).
 */
export function createChatService(deps: ChatDeps) {
  const { repo, entitlements, timeoutMs, log } = deps
  const slots = createTurnSlots()
  const activity = deps.activity ?? createModelActivity()
  const memory = createMemorySummary({
    repo,
    speakerNames: deps.sceneMembers.namesOf,
    summaryModel: entitlements.summaryModel,
    jobs: deps.jobs,
    slots,
    activity,
    timeoutMs,
    log,
    warn: deps.warn ?? log,
  })
  const sessions = createChatSessions({
    repo,
    entitlements,
    catalogue: deps.catalogue,
    texts: deps.texts,
    personas: deps.personas,
  })
  const scenes = createScenes({ repo: deps.sceneMembers, sessions })
  const generation = createGeneration({
    repo,
    scenes,
    diamonds: deps.diamonds,
    memory,
    activity,
    timeoutMs,
    streamLimits: deps.streamLimits,
    log,
    warn: deps.warn ?? log,
    recordReply: deps.recordReply,
  })
  const turns = createTurnPipeline({ repo, entitlements, slots, generation, scenes })
  const tidy = createChatTidy({ repo, sessions, slots, jobs: deps.jobs })
  const edits = createSwipesEdits({ repo, sessions, slots })
  const branches = createChatBranches({ repo, sessions })
  const authorsNote = createAuthorsNote({ repo })
  const impersonate = createImpersonate({
    repo,
    scenes,
    entitlements,
    diamonds: deps.diamonds,
    slots,
    activity,
    timeoutMs,
    streamLimits: deps.streamLimits,
    log,
  })

  return {
    /** How old an open hold of a reply must be before the `stale-holds` job refunds it. */
    holdDeadlineMs: timeoutMs + HOLD_GRACE_MS,

    /** The `chat-summary` job (ADR 017). */
    summariseMemory: memory.run,

    createSession: sessions.createSession,
    /** My Chats: a scene's row names its members (ADR 052). */
    async listSessions(...args: Parameters<typeof sessions.listSessions>) {
      const list = await sessions.listSessions(...args)
      const members = await deps.sceneMembers.memberNames(list.sessions.map((s) => s.id))
      if (members.size === 0) return list
      return {
        ...list,
        sessions: list.sessions.map((s) => ({ ...s, ...(members.has(s.id) ? { members: members.get(s.id) } : {}) })),
      }
    },
    getSession: sessions.getSession,
    /** A page of messages; a scene's replies name their speaker (ADR 052). */
    async listMessages(userId: string, sessionId: string, before: number | undefined, limit: number) {
      const page = await sessions.listMessages(userId, sessionId, before, limit)
      const labels = await scenes.speakerLabels(
        sessionId.toLowerCase(),
        page.items.filter((m) => m.author === 'assistant').map((m) => m.id),
      )
      if (labels.size === 0) return page
      return { ...page, items: page.items.map((m) => ({ ...m, speaker: labels.get(m.id) ?? null })) }
    },
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
    speak: turns.speak,

    // Group scenes (scenes.ts, ADR 052).
    scene: scenes.sceneOf,
    addSceneMember: scenes.addMember,
    removeSceneMember: scenes.removeMember,
    setSceneMode: scenes.setMode,

    /** Stops the reply being written in the session; false when none is. */
    async stop(userId: string, sessionId: string): Promise<boolean> {
      await sessions.requireSession(sessionId, userId)
      return slots.stop(sessionId)
    },

    // Find and tidy (chat-tidy.ts, ADR 048).
    deleteSession: tidy.deleteSession,
    restoreSession: tidy.restoreSession,
    /** The `chat-purge` job. */
    purgeDeletedSession: tidy.purgeDeleted,
    renameSession: tidy.rename,
    pinSession: tidy.pin,
    searchChats: tidy.search,
    sessionsWithCharacter: tidy.sessionsWithCharacter,

    listSwipes: edits.listSwipes,
    selectSwipe: edits.selectSwipe,
    editMessage: edits.editMessage,
    deleteMessage: edits.deleteMessage,

    branchFrom: branches.branchFrom,
    branchLinks: branches.branchLinks,

    // Issue 22 item 8 (ADR 053).
    updateAuthorNote: authorsNote.update,
    impersonate,

    /**
     * On shutdown: replies being written stop (their text is kept as interrupted), summaries are
     * abandoned, and this resolves when their writes are done, before the database closes.
     */
    close: slots.close,
  }
}

export type ChatService = ReturnType<typeof createChatService>
