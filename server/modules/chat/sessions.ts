import type { ChatSessionDetail, ChatSessionList, ChatSettings } from '#contracts/chat.ts'
import { AppError } from '#server/lib/errors.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { modelContext } from '#server/modules/models/model-server-info.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import { effectiveSettings, refusalOf, userBoundsOf } from '#server/modules/models/user-settings.ts'
import type { ChatRepo, SessionView } from './chat.repo.ts'
import { characterOf, invalidSession, summaryOf, toChatMessage, UUID, usageOf } from './chat-views.ts'
import { loadHistory } from './history.ts'
import { memoryView } from './memory-summary.ts'
import { buildPrompt, contextWindow, replaceMacros } from './prompt.ts'
import type { TurnSlots } from './turn-slots.ts'

export type ChatSessionsDeps = {
  repo: ChatRepo
  entitlements: Pick<Entitlements, 'planOf' | 'modelFor'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
  slots: Pick<TurnSlots, 'stopAndWait'>
}

/** The user's chats: start one, list them, open one (with what its plan lets the model remember), its memory note. */
export function createChatSessions({ repo, entitlements, catalogue, slots }: ChatSessionsDeps) {
  async function requireSession(sessionId: string, userId: string): Promise<SessionView> {
    if (!UUID.test(sessionId)) throw invalidSession()
    const session = await repo.findSession(sessionId, userId)
    if (!session) throw invalidSession()
    return session
  }

  const viewerSeesAdult = (userId: string, adultCookie: boolean) => catalogue.adultConfirmed(userId, adultCookie)

  async function detailOf(
    session: SessionView,
    userId: string,
    options: { chatModelId?: string | undefined; adultCookie: boolean },
  ): Promise<ChatSessionDetail> {
    const model = entitlements.modelFor(options.chatModelId, session.modelId)
    const plan = entitlements.planOf(session.paidPlanId)
    const adultOk = await viewerSeesAdult(userId, options.adultCookie)
    const fit = await modelContext(model, session.lastMessagePreview ?? '')
    const window = contextWindow(plan.memoryK, fit.contextTokens, effectiveSettings(model, session).replyTokens)
    const { history, olderExist } = await loadHistory(repo, session.id, window.budgetTokens)
    const prompt = buildPrompt({
      character: characterOf(session),
      userName: session.username,
      memoryNote: session.memoryNote,
      history,
      olderExist,
      budgetTokens: window.budgetTokens,
      promptStyle: model.promptStyle,
      language: session.language,
    })
    return {
      ...summaryOf(session, adultOk),
      modelId: session.modelId,
      memory: memoryView(session),
      settings: { temperature: session.temperature, replyTokens: session.replyTokens, language: session.language },
      context: usageOf(prompt, model, plan, window),
      plan: { planId: plan.planId, memoryK: plan.memoryK, premiumModels: plan.premiumModels },
    }
  }

  async function getMemory(userId: string, sessionId: string) {
    return memoryView(await requireSession(sessionId, userId))
  }

  return {
    requireSession,

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

    async deleteSession(userId: string, sessionId: string) {
      await requireSession(sessionId, userId)
      // A reply being written is stopped and stored first, then goes with the rest.
      await slots.stopAndWait(sessionId)
      if (!(await repo.deleteSession(sessionId, userId))) throw invalidSession()
      return { deleted: true as const }
    },

    getMemory,

    /**
     * Sets the chat's temperature and reply length (null: the model's default), checked against
     * the bounds of the chat's model (`chatModelId`, else its last, else the default) once the chat
     * is known to be the user's. A value outside them, or one the operator forbids, changes nothing.
     */
    async updateSettings(
      userId: string,
      sessionId: string,
      settings: Omit<ChatSettings, 'language'> & {
        language?: ChatSettings['language'] | undefined
        chatModelId?: string | undefined
      },
    ): Promise<ChatSettings> {
      const session = await requireSession(sessionId, userId)
      const bounds = userBoundsOf(entitlements.modelFor(settings.chatModelId, session.modelId))
      for (const field of ['temperature', 'replyTokens'] as const) {
        const refusal = refusalOf(bounds, field, settings[field])
        if (refusal && 'locked' in refusal) {
          throw new AppError(400, 'CHAT_SETTING_LOCKED', `This model does not let users change ${field}.`, { field })
        }
        if (refusal) {
          throw new AppError(
            400,
            'CHAT_SETTING_OUT_OF_BOUNDS',
            `${field} must be between ${refusal.min} and ${refusal.max} for this model.`,
            refusal,
          )
        }
      }
      const written = await repo.writeSettings(session.id, {
        temperature: settings.temperature,
        replyTokens: settings.replyTokens,
        language: settings.language,
      })
      if (!written) throw invalidSession()
      return written
    },

    async updateMemory(userId: string, sessionId: string, note: string) {
      await requireSession(sessionId, userId)
      await repo.writeMemory(sessionId, note.trim())
      return getMemory(userId, sessionId)
    },
  }
}

export type ChatSessions = ReturnType<typeof createChatSessions>
