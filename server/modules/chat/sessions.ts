import type { ChatSessionDetail, ChatSessionList, ChatSettings } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { modelContext } from '#server/modules/models/model-server-info.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { effectiveSettings, refusalOf, userBoundsOf } from '#server/modules/models/user-settings.ts'
import type { RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { authorNoteOf } from './authors-note.ts'
import type { ChatRepo, SessionView } from './chat.repo.ts'
import { characterOf, invalidSession, summaryOf, toChatMessage, UUID, usageOf } from './chat-views.ts'
import { loadHistory, olderCharacterMessages } from './history.ts'
import { chatLanguage } from './language.ts'
import { memoryView } from './memory-summary.ts'
import type { PersonasService } from './personas/personas.service.ts'
import { buildPrompt, contextWindow, replaceMacros } from './prompt.ts'

export type ChatSessionsDeps = {
  repo: ChatRepo
  entitlements: Pick<Entitlements, 'planOf' | 'modelFor'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
  texts: Pick<RoleTextsService, 'localize' | 'localizedSummaries'>
  /** The default persona a new chat takes (ADR 049); without one, the account name. */
  personas?: Pick<PersonasService, 'defaultOf' | 'setChatPersona'> | undefined
}

/** The user's chats: start one, list them, open one (with what its plan lets the model remember), its memory note. */
export function createChatSessions({ repo, entitlements, catalogue, texts, personas }: ChatSessionsDeps) {
  async function requireSession(sessionId: string, userId: string): Promise<SessionView> {
    if (!UUID.test(sessionId)) throw invalidSession()
    const session = await repo.findSession(sessionId, userId)
    if (!session) throw invalidSession()
    return session
  }

  const viewerSeesAdult = (userId: string, adultCookie: boolean) => catalogue.adultConfirmed(userId, adultCookie)

  /**
   * The characters' names in `locale` where a translation gives one (ADR 039): the chat header and
   * list name a character as its page and greeting do. The prompt keeps the source name.
   */
  async function localNames(rows: { roleId: number | null; rolePublicId: string | null }[], locale: Locale | null) {
    const ids = [...new Set(rows.flatMap((r) => (r.roleId !== null && r.rolePublicId ? [r.roleId] : [])))]
    if (!locale || ids.length === 0) return new Map<number, string>()
    const found = await texts.localizedSummaries(ids, locale)
    return new Map(found.flatMap((t) => (t.name ? [[t.roleId, t.name] as const] : [])))
  }

  async function detailOf(
    session: SessionView,
    userId: string,
    options: { chatModelId?: string | undefined; adultCookie: boolean; locale?: Locale | undefined },
  ): Promise<ChatSessionDetail> {
    const names = await localNames([session], chatLanguage(session.language, options.locale))
    const model = entitlements.modelFor(options.chatModelId, session.modelId)
    const plan = entitlements.planOf(session.paidPlanId)
    const adultOk = await viewerSeesAdult(userId, options.adultCookie)
    const fit = await modelContext(model, session.lastMessagePreview ?? '')
    const window = contextWindow(plan.memoryK, fit.contextTokens, effectiveSettings(model, session).replyTokens)
    const loaded = await loadHistory(repo, session.id, window.budgetTokens)
    const character = characterOf(session)
    const prompt = buildPrompt({
      character,
      userName: session.username,
      persona: session.personaDescription,
      authorNote: authorNoteOf(session),
      memoryNote: session.memoryNote,
      history: loaded.history,
      olderExist: loaded.olderExist,
      olderCharacterMessages: await olderCharacterMessages(repo, session.id, loaded, character.lorebook),
      budgetTokens: window.budgetTokens,
      promptStyle: model.promptStyle,
      language: session.language,
    })
    return {
      ...summaryOf(session, adultOk, session.roleId !== null ? names.get(session.roleId) : null),
      modelId: session.modelId,
      memory: memoryView(session),
      settings: { temperature: session.temperature, replyTokens: session.replyTokens, language: session.language },
      authorNote: authorNoteOf(session),
      context: usageOf(prompt, model, plan, window),
      plan: { planId: plan.planId, memoryK: plan.memoryK, premiumModels: plan.premiumModels },
    }
  }

  /** Chats as lists show them: characters named in each chat's language, adult avatars blurred unless confirmed. */
  async function summariesOf(
    userId: string,
    rows: Awaited<ReturnType<ChatRepo['listSessions']>>,
    adultCookie: boolean,
    locale?: Locale,
  ) {
    const adultOk = rows.some((r) => r.roleIsAdult) ? await viewerSeesAdult(userId, adultCookie) : true
    // Each chat in its own language when it has one, else the interface's.
    const byLanguage = new Map<Locale | null, typeof rows>()
    for (const row of rows) {
      const language = chatLanguage(row.language, locale)
      byLanguage.set(language, [...(byLanguage.get(language) ?? []), row])
    }
    const names = new Map<string, string>()
    for (const [language, group] of byLanguage) {
      const found = await localNames(group, language)
      for (const row of group) {
        const name = row.roleId !== null ? found.get(row.roleId) : undefined
        if (name) names.set(row.id, name)
      }
    }
    return rows.map((row) => summaryOf(row, adultOk, names.get(row.id)))
  }

  /**
   * A character the user may chat with: public or their own, and an adult one only once they
   * confirmed their age. Starting a chat and adding a character to a scene (ADR 052) both ask here.
   */
  async function chattableRole(userId: string, rolePublicId: string, adultCookie: boolean) {
    const role = await repo.findRoleForChat(rolePublicId)
    if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
      throw AppError.notFound('No such character')
    }
    if (role.isAdult && !(await viewerSeesAdult(userId, adultCookie))) {
      throw new AppError(403, 'FORBIDDEN', 'Confirm that you are 18 or older to chat with this character.', {
        reason: 'ADULT_CONTENT',
      })
    }
    return role
  }

  async function getMemory(userId: string, sessionId: string) {
    return memoryView(await requireSession(sessionId, userId))
  }

  return {
    requireSession,
    chattableRole,
    viewerSeesAdult,

    /**
     * A new chat, opened by the character's greeting (first message, the alternates as its swipes)
     * in `locale`, the user's interface language, when the character has a translation there;
     * else in its own language (ADR 039).
     */
    async createSession(userId: string, rolePublicId: string, adultCookie: boolean, locale?: Locale) {
      // The greetings are counted as they are stored (ADR 067).
      await tokenizerReady()
      const role = await chattableRole(userId, rolePublicId, adultCookie)
      const localized = locale ? await texts.localize(role, locale) : null
      const shown = localized?.texts ?? role
      // A greeting in the user's language is not followed by alternates still in the source's: an
      // alternate the translation leaves untranslated is left out of this chat's swipes.
      const translated = localized?.translation != null && shown.firstMessage !== role.firstMessage
      const alternates = translated
        ? shown.alternateGreetings.filter((g, i) => g !== role.alternateGreetings[i])
        : shown.alternateGreetings
      // The default persona is the chat's from its greeting on (`{{user}}` is its name).
      const persona = (await personas?.defaultOf(userId)) ?? null
      const names = { char: shown.name, user: persona?.name ?? (await repo.usernameOf(userId)) }
      const greetings = [shown.firstMessage, ...alternates]
        .map((g) => replaceMacros(g, names).trim())
        .filter(Boolean)
        .map((content) => ({ content, tokens: countTokens(content) }))
      // "New chat" twice gives one chat: an empty one (only the greeting) is reused while its
      // greeting is one this chat would get now (not one of another language) (ADR 048).
      const empty = await repo.findEmptySession(userId, role.id)
      const reusable =
        empty !== null &&
        (empty.greeting ? greetings.some((g) => g.content === empty.greeting?.content) : greetings.length === 0)
      const { sessionId, firstMessage } =
        empty && reusable
          ? { sessionId: empty.sessionId, firstMessage: empty.greeting }
          : await repo.createSession({ userId, roleId: role.id, greetings })
      if (persona) await personas?.setChatPersona(userId, sessionId, persona.id)
      const session = await requireSession(sessionId, userId)
      return {
        ...(await detailOf(session, userId, { adultCookie, locale })),
        firstMessage: firstMessage ? toChatMessage(firstMessage) : null,
      }
    },

    async listSessions(
      userId: string,
      page: number,
      pageSize: number,
      adultCookie: boolean,
      locale?: Locale,
    ): Promise<ChatSessionList> {
      const [rows, total] = await Promise.all([
        repo.listSessions(userId, (page - 1) * pageSize, pageSize),
        repo.countSessions(userId),
      ])
      return {
        sessions: await summariesOf(userId, rows, adultCookie, locale),
        page,
        pageSize,
        total,
        totalPages: Math.ceil(total / pageSize),
      }
    },

    summariesOf,

    async getSession(
      userId: string,
      sessionId: string,
      options: { chatModelId?: string | undefined; adultCookie: boolean; locale?: Locale | undefined },
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
