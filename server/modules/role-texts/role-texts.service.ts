import { createHash } from 'node:crypto'
import type { FieldProblem } from '#contracts/characters.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import {
  checkTranslationTexts,
  type RoleTexts,
  type RoleTranslation,
  type RoleTranslationList,
  type TranslationMark,
  type TranslationTexts,
} from '#contracts/role-texts.ts'
import { AppError } from '#server/lib/errors.ts'
import type { RoleSource, RoleTextsRepo, TranslationRow, TranslationSummaryRow } from './role-texts.repo.ts'

/**
 * A character's texts per language (ADR 039). The source texts are the role's own, written in its
 * `sourceLanguage`; a translation overlays them for one locale, field by field. `roleId` is the
 * public id in everything callers outside the catalogue use; `localizedTexts` takes row ids, as
 * the catalogue has them at hand.
 */

/** sha256 (hex) of the five source texts: a translation made from other texts is stale. */
export function sourceHashOf(texts: RoleTexts): string {
  const { name, introduction, scenario, firstMessage, alternateGreetings } = texts
  return createHash('sha256')
    .update(JSON.stringify([name, introduction, scenario, firstMessage, alternateGreetings]))
    .digest('hex')
}

/** What the texts of a role shown in one locale are: the overlay, its language and how it was made. */
export type LocalizedTexts = { texts: RoleTexts; language: Locale; translation: TranslationMark }

/** The translation-relevant columns of a role. */
export type SourceRole = RoleTexts & { sourceLanguage: string }

export function languageOf(role: { sourceLanguage: string }): Locale {
  return isLocale(role.sourceLanguage) ? role.sourceLanguage : DEFAULT_LOCALE
}

/**
 * The texts of `role` in `locale`: each text of the translation (when there is one, for a locale
 * other than the role's own) over the source's; an empty translated text shows the source's.
 */
export function overlay(role: SourceRole, row: TranslationRow | null | undefined, locale: Locale): LocalizedTexts {
  const source = languageOf(role)
  const own: RoleTexts = {
    name: role.name,
    introduction: role.introduction,
    scenario: role.scenario,
    firstMessage: role.firstMessage,
    alternateGreetings: role.alternateGreetings,
  }
  if (!row || locale === source) return { texts: own, language: source, translation: null }
  return {
    texts: {
      name: row.name || role.name,
      introduction: row.introduction || role.introduction,
      scenario: row.scenario || role.scenario,
      firstMessage: row.firstMessage || role.firstMessage,
      alternateGreetings: role.alternateGreetings.map((greeting, i) => row.alternateGreetings[i] || greeting),
    },
    language: locale,
    translation: { origin: row.origin, stale: row.stale },
  }
}

/**
 * What other modules are told (fire and forget): `wanted` when a public role is shown in a locale
 * that is not its own and has no fresh translation; `sourceChanged` after a save changed its source
 * texts. The translation job (MT) registers here in server/services.ts.
 */
export type RoleTextsListener = {
  wanted?: (roleId: string, locale: Locale) => unknown
  sourceChanged?: (roleId: string) => unknown
}

export type RoleTextsDeps = {
  repo: RoleTextsRepo
  /** Where a listener's failure is reported (it never reaches the request). */
  warn?: (info: Record<string, unknown>, msg: string) => void
}

function validationError(problems: FieldProblem[]): AppError {
  return new AppError(
    400,
    'VALIDATION_ERROR',
    'Some fields are not valid.',
    problems.map((p) => ({ ...p, message: p.code, in: 'body' })),
  )
}

function viewOf(row: TranslationRow): RoleTranslation {
  return {
    locale: row.locale as Locale,
    origin: row.origin,
    stale: row.stale,
    texts: {
      name: row.name,
      introduction: row.introduction,
      scenario: row.scenario,
      firstMessage: row.firstMessage,
      alternateGreetings: row.alternateGreetings,
    },
    updatedAt: row.updatedAt.toISOString(),
  }
}

export function createRoleTextsService({ repo, warn }: RoleTextsDeps) {
  const listeners: RoleTextsListener[] = []

  function tell(event: keyof RoleTextsListener, ...args: [string, Locale] | [string]) {
    for (const listener of listeners) {
      const handler = listener[event] as ((...a: unknown[]) => unknown) | undefined
      if (!handler) continue
      Promise.resolve()
        .then(() => handler(...args))
        .catch((error: unknown) => warn?.({ err: error, event, roleId: args[0] }, 'role texts listener failed'))
    }
  }

  /** Only the character's creator may change its texts; someone else's private character does not exist for them. */
  async function ownedRole(userId: string, publicId: string): Promise<RoleSource> {
    const role = await repo.findRole(publicId)
    if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
      throw AppError.notFound('No such character')
    }
    if (role.creatorId !== userId) throw AppError.forbidden('Only its creator may change this character')
    return role
  }

  async function listOf(role: RoleSource): Promise<RoleTranslationList> {
    return {
      roleId: role.publicId,
      sourceLanguage: languageOf(role),
      translations: (await repo.translationsOf(role.id)).map(viewOf),
    }
  }

  return {
    sourceHashOf,
    overlay,

    /** Registers what to do when a translation is wanted or a source changed; returns its removal. */
    listen(listener: RoleTextsListener): () => void {
      listeners.push(listener)
      return () => {
        const at = listeners.indexOf(listener)
        if (at >= 0) listeners.splice(at, 1)
      }
    },

    /** The translation rows of these roles (row ids) into `locale`, by role id: one query. */
    async localizedTexts(roleIds: number[], locale: Locale): Promise<Map<number, TranslationRow>> {
      const rows = await repo.translationsIn(roleIds, locale)
      return new Map(rows.map((row) => [row.roleId, row]))
    },

    /** What listing cards show of these roles' translations into `locale` (name, start of the introduction): one query. */
    async localizedSummaries(roleIds: number[], locale: Locale): Promise<TranslationSummaryRow[]> {
      return repo.summariesIn(roleIds, locale)
    },

    /** One role's texts in `locale` (see `overlay`). */
    async localize(role: SourceRole & { id: number }, locale: Locale): Promise<LocalizedTexts> {
      const [row] = await repo.translationsIn([role.id], locale)
      return overlay(role, row, locale)
    },

    /**
     * A role was shown in `locale` with the texts `shown`: when it is public, the locale is not its
     * own and it has no fresh translation there, `wanted` listeners hear of it.
     */
    noteShown(
      role: { publicId: string; visibility: string; sourceLanguage: string },
      locale: Locale,
      shown: LocalizedTexts,
    ) {
      if (role.visibility !== 'public' || locale === languageOf(role)) return
      if (shown.translation && !shown.translation.stale) return
      tell('wanted', role.publicId, locale)
    },

    /** Called by the characters service after a save changed a role's source texts (its hash). */
    sourceChanged(publicId: string) {
      tell('sourceChanged', publicId)
    },

    /** `POST /api/role/translations`: every translation of one's own character. */
    async listTranslations(userId: string, publicId: string): Promise<RoleTranslationList> {
      return listOf(await ownedRole(userId, publicId))
    },

    /**
     * The creator's translations of a role (row id), for its Character Card: anyone who may see
     * the character may export it. Machine translations are ours to make again (ADR 041).
     */
    async authorTranslationsOf(roleId: number): Promise<TranslationRow[]> {
      return (await repo.translationsOf(roleId)).filter((row) => row.origin === 'author')
    },

    /** `POST /api/role/translations/save`: the creator's translation into `locale`, replacing any. */
    async saveAuthorTranslation(
      userId: string,
      publicId: string,
      locale: Locale,
      texts: TranslationTexts,
    ): Promise<RoleTranslationList> {
      const role = await ownedRole(userId, publicId)
      const problems = checkTranslationTexts(texts)
      if (locale === languageOf(role)) problems.unshift({ path: 'locale', code: 'source_language' })
      if (problems.length > 0) throw validationError(problems)
      await repo.upsert(role.id, locale, {
        origin: 'author',
        name: texts.name,
        introduction: texts.introduction,
        scenario: texts.scenario,
        firstMessage: texts.firstMessage,
        alternateGreetings: texts.alternateGreetings,
        sourceHash: sourceHashOf(role),
        stale: false,
      })
      return listOf(role)
    },

    /** `POST /api/role/translations/remove`: the page shows that locale from the source (or the job's text) again. */
    async removeTranslation(userId: string, publicId: string, locale: Locale): Promise<RoleTranslationList> {
      const role = await ownedRole(userId, publicId)
      await repo.remove(role.id, locale)
      return listOf(role)
    },

    /**
     * The translation job's result, made from the source texts of `sourceHash`: stored unless the
     * locale has an author's translation (or is the role's own). Stale at once when the source has
     * changed since. Returns whether it was stored.
     */
    async saveMachineTranslation(
      publicId: string,
      locale: Locale,
      texts: TranslationTexts,
      sourceHash: string,
    ): Promise<boolean> {
      const role = await repo.findRole(publicId)
      if (!role || locale === languageOf(role)) return false
      return repo.upsert(
        role.id,
        locale,
        {
          origin: 'machine',
          name: texts.name,
          introduction: texts.introduction,
          scenario: texts.scenario,
          firstMessage: texts.firstMessage,
          alternateGreetings: texts.alternateGreetings,
          sourceHash,
          stale: sourceHash !== sourceHashOf(role),
        },
        true,
      )
    },

    /**
     * Author translations that come with the character rather than through the editor (the shipped
     * demo content, an imported card): written with the current source hash, replacing what that
     * locale has unless it is already exactly this. The role's own language is skipped. Returns
     * how many were written; an unknown role writes none.
     */
    async importAuthorTranslations(
      publicId: string,
      translations: Partial<Record<Locale, TranslationTexts>>,
    ): Promise<number> {
      const role = await repo.findRole(publicId)
      if (!role) return 0
      const sourceHash = sourceHashOf(role)
      const existing = new Map((await repo.translationsOf(role.id)).map((row) => [row.locale, row]))
      let written = 0
      for (const [locale, texts] of Object.entries(translations) as [Locale, TranslationTexts][]) {
        if (locale === languageOf(role)) continue
        const write = {
          origin: 'author' as const,
          name: texts.name || null,
          introduction: texts.introduction,
          scenario: texts.scenario,
          firstMessage: texts.firstMessage,
          alternateGreetings: texts.alternateGreetings,
          sourceHash,
          stale: false,
        }
        const current = existing.get(locale)
        const same =
          current &&
          JSON.stringify([
            current.origin,
            current.name,
            current.introduction,
            current.scenario,
            current.firstMessage,
            current.alternateGreetings,
            current.sourceHash,
            current.stale,
          ]) ===
            JSON.stringify([
              write.origin,
              write.name,
              write.introduction,
              write.scenario,
              write.firstMessage,
              write.alternateGreetings,
              write.sourceHash,
              write.stale,
            ])
        if (same) continue
        await repo.upsert(role.id, locale, write)
        written++
      }
      return written
    },

    /** A role's source texts, language and hash by public id (for the translation job), or null. */
    async sourceOf(publicId: string) {
      const role = await repo.findRole(publicId)
      if (!role) return null
      return { ...role, sourceLanguage: languageOf(role), sourceHash: sourceHashOf(role) }
    },
  }
}

export type RoleTextsService = ReturnType<typeof createRoleTextsService>
