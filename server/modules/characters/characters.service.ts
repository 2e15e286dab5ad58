import { randomBytes } from 'node:crypto'
import type { Tag, Viewer } from '#contracts/catalogue.ts'
import {
  CHARACTER_LIMITS,
  type CharacterDraftForm,
  checkCardParts,
  checkCharacterFields,
  type EditableRole,
  type FieldProblem,
  type ImportResult,
  type MyRole,
  type OwnRole,
  type ReportReason,
} from '#contracts/characters.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import { CARD_LIMITS, CardError } from '#server/modules/cards/card-types.ts'
import { exportCardCharx, exportCardJson, exportCardPng } from '#server/modules/cards/export-card.ts'
import { detectCardFormat, importCard } from '#server/modules/cards/import-card.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import {
  AVATAR,
  BANNER,
  type ImageKind,
  type ImagesService,
  imageUrl,
  UPLOAD_FORMATS,
} from '#server/modules/images/images.service.ts'
import type { RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import type { CardFilesHold } from './card-files.ts'
import {
  type CardFileExtension,
  type CardLanguages,
  cardTranslationsOf,
  draftOfCharacter,
  fileNameFor,
  formOfDraft,
  readCardExtras,
  takeCardLanguages,
} from './card-mapping.ts'
import type { CharactersRepo, RoleOwnership, RoleWrite } from './characters.repo.ts'
import type { Upload } from './multipart.ts'
import { fieldsError, type RoleForm } from './role-form.ts'
import { findTag, matchCardTags, slugForTag } from './tag-slug.ts'

export type CharactersDeps = {
  repo: CharactersRepo
  images: Pick<ImagesService, 'store' | 'preview' | 'find' | 'removeUnused'>
  catalogue: Pick<CatalogueService, 'getRole' | 'invalidateListings'>
  /**
   * Source hashes and the `sourceChanged` event of a character's texts per language (ADR 039); the
   * creator's translations a card brings or takes along (ADR 041).
   */
  texts: Pick<RoleTextsService, 'sourceHashOf' | 'sourceChanged' | 'saveAuthorTranslation' | 'authorTranslationsOf'>
  /** The files of imported cards, held between the import and the save (ADR 047). */
  held: CardFilesHold
  /** Which characters an operator hid (ADR 055; the moderation module keeps it). */
  hidden?: { hiddenAmong(roleIds: number[]): Promise<Set<number>> }
  /** The state a tag a user makes starts in: pending approval under the operator's policy (ADR 059). */
  tagPolicy?: { newUserTagState(): Promise<'visible' | 'pending'> }
}

type TagNames = { slug: string; names: Record<string, string> }

function localeOf(requested: string): Locale {
  return isLocale(requested) ? requested : DEFAULT_LOCALE
}

function localName(names: Record<string, string>, locale: string): string {
  return names[locale] ?? names[DEFAULT_LOCALE] ?? Object.values(names)[0] ?? ''
}

/** Public ids of created characters: 12 base-36 characters, like the seeded ones. */
function newPublicId(): string {
  return randomBytes(8).readBigUInt64BE(0).toString(36).padStart(13, '0').slice(0, 12)
}

/** The form's text as the save reads it (role-form.ts): line ends made `\n`, trimmed. */
const asSaved = (text: string) => text.replace(/\r\n?/g, '\n').trim()

/**
 * What the save would refuse in a form filled from a card, as the form itself will find it
 * (problemsOf in app/features/characters/form-state.ts): the same checks, the form's own paths.
 */
export function problemsOfDraft(draft: CharacterDraftForm): FieldProblem[] {
  const fields = checkCharacterFields({
    name: asSaved(draft.name),
    introduction: asSaved(draft.introduction),
    scenario: asSaved(draft.scenario),
    personality: asSaved(draft.personality),
    details: asSaved(draft.details),
    firstMessage: asSaved(draft.firstMessage),
    exampleDialogue: asSaved(draft.exampleDialogue),
    alternateGreetings: draft.alternateGreetings.map(asSaved),
    tags: draft.tags.map((tag) => tag.slug ?? tag.name),
    visibility: 'public',
    isAdult: draft.isAdult,
  })
  return [...fields, ...checkCardParts({ lorebook: draft.lorebook, cardExtras: draft.cardExtras })]
}

/** A CardError as the one server error: 413 for sizes, else 400 `INVALID_CARD`; `details.reason` is its code. */
export function cardErrorToAppError(error: CardError): AppError {
  const details = { reason: error.code, ...error.details }
  if (error.code === 'too_large' || error.code === 'zip_too_large') {
    return new AppError(413, 'PAYLOAD_TOO_LARGE', error.message, details)
  }
  return new AppError(400, 'INVALID_CARD', error.message, details)
}

/** Only the character's creator may change it. Someone else's private character does not exist for them. */
function assertOwner(role: RoleOwnership | null, userId: string): RoleOwnership {
  if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
    throw AppError.notFound('No such character')
  }
  if (role.creatorId !== userId) throw AppError.forbidden('Only its creator may change this character')
  return role
}

export function createCharactersService({
  repo,
  images,
  catalogue,
  texts,
  held,
  hidden: hiddenRoles,
  tagPolicy,
}: CharactersDeps) {
  const newTagState = async (typed: string[]) =>
    typed.length > 0 && tagPolicy ? await tagPolicy.newUserTagState() : 'visible'

  async function tagsById(roleIds: number[], locale: string): Promise<Map<number, Tag[]>> {
    const byRole = new Map<number, Tag[]>()
    for (const row of await repo.tagsOfRoles(roleIds)) {
      const list = byRole.get(row.roleId) ?? []
      list.push({ slug: row.slug, name: localName(row.names, locale) })
      byRole.set(row.roleId, list)
    }
    return byRole
  }

  async function editable(publicId: string, locale: string): Promise<EditableRole> {
    const row = await repo.findFull(publicId)
    if (!row) throw AppError.notFound('No such character')
    const roleTags = (await tagsById([row.id], locale)).get(row.id) ?? []
    return {
      roleId: row.publicId,
      name: row.name,
      avatarUrl: imageUrl(row.avatarImageId),
      bannerUrl: imageUrl(row.bannerImageId),
      tags: roleTags,
      introduction: row.introduction,
      scenario: row.scenario,
      personality: row.personality,
      details: row.description,
      firstMessage: row.firstMessage,
      alternateGreetings: row.alternateGreetings,
      exampleDialogue: row.exampleDialogue,
      visibility: row.visibility,
      isAdult: row.isAdult,
      sourceLanguage: isLocale(row.sourceLanguage) ? row.sourceLanguage : DEFAULT_LOCALE,
      lorebook: row.characterBook,
      cardExtras: readCardExtras(row.cardExtras),
      cardFileCount: await repo.fileCountOf(row.id),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }
  }

  /** Stores an upload; an upload that is no image is a field error of that field. */
  async function storeUpload(upload: Upload, kind: ImageKind, path: 'avatar' | 'banner', isAdult: boolean) {
    try {
      return await images.store(upload.bytes, kind, {
        gated: isAdult,
        blurredTwin: path === 'avatar',
        accept: UPLOAD_FORMATS,
      })
    } catch (error) {
      if (error instanceof AppError && (error.status === 415 || error.status === 400)) {
        throw fieldsError([{ path, code: 'not_an_image' }])
      }
      throw error
    }
  }

  /** Re-stores a kept image when the adult flag changes: adult images are gated and have a blurred twin. */
  async function restore(imageId: string, kind: ImageKind, isAdult: boolean, twin: boolean) {
    const image = await images.find(imageId)
    if (!image) return null
    return images.store(image.bytes, kind, { gated: isAdult, blurredTwin: twin })
  }

  /**
   * The image columns after a save, plus the images made (removed again if the save fails) and
   * the ones replaced (removed once it succeeded).
   */
  async function imagesFor(form: RoleForm, current: RoleOwnership | null, isAdult: boolean) {
    const created: string[] = []
    const replaced: (string | null)[] = []
    let avatarImageId = current?.avatarImageId ?? null
    let avatarBlurredImageId = current?.avatarBlurredImageId ?? null
    let bannerImageId = current?.bannerImageId ?? null
    const flagChanged = current !== null && current.isAdult !== isAdult
    try {
      if (form.avatar || form.removeAvatar || (flagChanged && avatarImageId)) {
        replaced.push(avatarImageId, avatarBlurredImageId)
        const stored = form.avatar
          ? await storeUpload(form.avatar, AVATAR, 'avatar', isAdult)
          : form.removeAvatar || !avatarImageId
            ? null
            : await restore(avatarImageId, AVATAR, isAdult, true)
        if (stored) created.push(stored.id, ...(stored.blurredId ? [stored.blurredId] : []))
        avatarImageId = stored?.id ?? null
        avatarBlurredImageId = stored?.blurredId ?? null
      }
      if (form.banner || form.removeBanner || (flagChanged && bannerImageId)) {
        replaced.push(bannerImageId)
        const stored = form.banner
          ? await storeUpload(form.banner, BANNER, 'banner', isAdult)
          : form.removeBanner || !bannerImageId
            ? null
            : await restore(bannerImageId, BANNER, isAdult, false)
        if (stored) created.push(stored.id)
        bannerImageId = stored?.id ?? null
      }
    } catch (error) {
      await images.removeUnused(created)
      throw error
    }
    return { columns: { avatarImageId, avatarBlurredImageId, bannerImageId }, created, replaced }
  }

  /**
   * A user may have made at most CHARACTER_LIMITS.userMadeTags tags that still exist: new names
   * beyond that are refused (choosing existing tags always works). Checked before the images are
   * stored, so a refused save leaves nothing behind.
   */
  async function checkNewTags(userId: string, typed: string[]) {
    if (typed.length === 0) return
    const known = await repo.allTags()
    const fresh = new Set(typed.filter((name) => !findTag(known, name)).map(slugForTag))
    if (fresh.size === 0) return
    if ((await repo.countTagsMadeBy(userId)) + fresh.size > CHARACTER_LIMITS.userMadeTags) {
      throw fieldsError([{ path: 'tags', code: 'too_many', limit: CHARACTER_LIMITS.userMadeTags }])
    }
  }

  function writeOf(
    form: RoleForm,
    imageColumns: Pick<RoleWrite, 'avatarImageId' | 'avatarBlurredImageId' | 'bannerImageId'>,
    kept: {
      characterBook: RoleWrite['characterBook']
      cardExtras: RoleWrite['cardExtras']
      sourceLanguage: RoleWrite['sourceLanguage']
    },
  ): RoleWrite {
    const { fields } = form
    return {
      name: fields.name,
      introduction: fields.introduction,
      scenario: fields.scenario,
      personality: fields.personality,
      description: fields.details,
      firstMessage: fields.firstMessage,
      alternateGreetings: fields.alternateGreetings,
      exampleDialogue: fields.exampleDialogue,
      visibility: fields.visibility,
      isAdult: fields.isAdult,
      sourceLanguage: form.sourceLanguage ?? kept.sourceLanguage,
      tags: fields.tags,
      characterBook: form.lorebook === undefined ? kept.characterBook : form.lorebook,
      cardExtras: form.cardExtras ?? kept.cardExtras,
      ...imageColumns,
    }
  }

  /**
   * After a save of a form filled from a card: the card's translations become the creator's (all
   * but the one into the character's own language). ADR 041.
   */
  async function saveCardTranslations(
    userId: string,
    publicId: string,
    sourceLanguage: string,
    translations: CardLanguages,
  ) {
    for (const { locale, texts: translated } of translations) {
      if (locale !== sourceLanguage) await texts.saveAuthorTranslation(userId, publicId, locale, translated)
    }
  }

  /**
   * The card's files the save writes: those held for the import's token (a token no longer held
   * refuses the save, `cardFiles: invalid`: the files would be lost unseen), none on `remove`,
   * undefined (keep) otherwise. Checked before any picture is stored.
   */
  async function cardFilesOf(userId: string, form: RoleForm): Promise<RoleWrite['files']> {
    if (form.cardFiles === undefined) return undefined
    if (form.cardFiles === 'remove') return []
    const files = await held.find(userId, form.cardFiles.token)
    if (!files) throw fieldsError([{ path: 'cardFiles', code: 'invalid' }])
    return files
  }

  return {
    /** `POST /api/addRole`: a new character owned by the user. */
    async createRole(userId: string, submitted: RoleForm, requestedLocale: string): Promise<EditableRole> {
      const locale = localeOf(requestedLocale)
      const { form, translations } = takeCardLanguages(submitted)
      await checkNewTags(userId, form.fields.tags)
      const files = await cardFilesOf(userId, form)
      const stored = await imagesFor(form, null, form.fields.isAdult)
      const publicId = newPublicId()
      try {
        // The texts are in the creator's interface language unless the form says otherwise.
        const kept = { characterBook: null, cardExtras: {}, sourceLanguage: locale }
        await repo.createRole(
          { ...writeOf(form, stored.columns, kept), files },
          { publicId, creatorId: userId, locale, newTagState: await newTagState(form.fields.tags) },
        )
      } catch (error) {
        await images.removeUnused(stored.created)
        throw error
      }
      if (typeof form.cardFiles === 'object') await held.release(userId)
      await saveCardTranslations(userId, publicId, form.sourceLanguage ?? locale, translations)
      if (form.fields.visibility === 'public') await catalogue.invalidateListings()
      return editable(publicId, locale)
    },

    async updateRole(
      userId: string,
      publicId: string,
      submitted: RoleForm,
      requestedLocale: string,
    ): Promise<EditableRole> {
      const locale = localeOf(requestedLocale)
      const { form, translations } = takeCardLanguages(submitted)
      const current = assertOwner(await repo.findOwnership(publicId), userId)
      const full = await repo.findFull(publicId)
      await checkNewTags(userId, form.fields.tags)
      const files = await cardFilesOf(userId, form)
      const stored = await imagesFor(form, current, form.fields.isAdult)
      const write = {
        ...writeOf(form, stored.columns, {
          characterBook: full?.characterBook ?? null,
          cardExtras: full?.cardExtras ?? {},
          sourceLanguage: current.sourceLanguage,
        }),
        files,
      }
      const sourceHash = texts.sourceHashOf(write)
      try {
        const writer = { id: userId, locale, newTagState: await newTagState(form.fields.tags) }
        await repo.updateRole(current.id, write, writer, sourceHash)
      } catch (error) {
        await images.removeUnused(stored.created)
        throw error
      }
      if (typeof form.cardFiles === 'object') await held.release(userId)
      // Its translations were marked stale with the save; the translation job redoes them.
      if (!full || texts.sourceHashOf(full) !== sourceHash) texts.sourceChanged(publicId)
      await saveCardTranslations(userId, publicId, write.sourceLanguage, translations)
      await images.removeUnused(stored.replaced)
      await catalogue.invalidateListings()
      return editable(publicId, locale)
    },

    /**
     * The database id of one of the user's own characters, for the modules that hang things on it
     * (lorebooks, ADR 043): 404 for someone else's private one, 403 for someone else's public one.
     */
    async ownRoleId(userId: string, publicId: string): Promise<number> {
      return assertOwner(await repo.findOwnership(publicId), userId).id
    },

    async deleteRole(userId: string, publicId: string): Promise<void> {
      const current = assertOwner(await repo.findOwnership(publicId), userId)
      await repo.deleteRole(current.id)
      await images.removeUnused([current.avatarImageId, current.avatarBlurredImageId, current.bannerImageId])
      await catalogue.invalidateListings()
    },

    /** "My characters": every character the user created, private ones included. */
    async listOwn(userId: string, requestedLocale: string): Promise<MyRole[]> {
      const locale = localeOf(requestedLocale)
      const rows = await repo.listOwnedBy(userId)
      const tags = await tagsById(
        rows.map((r) => r.id),
        locale,
      )
      const hidden =
        (await hiddenRoles?.hiddenAmong(rows.filter((r) => r.visibility === 'private').map((r) => r.id))) ?? new Set()
      return rows.map((row) => ({
        roleId: row.publicId,
        name: row.name,
        // The owner sees their own picture; an adult one still needs the age cookie to load.
        avatarUrl: imageUrl(row.avatarImageId),
        tags: tags.get(row.id) ?? [],
        visibility: row.visibility,
        ...(hidden.has(row.id) ? { hiddenByOperator: true as const } : {}),
        isAdult: row.isAdult,
        chatCount: row.chatCount,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      }))
    },

    /** One's own character: the page's view of it (private ones too) and the edit form's data. */
    async getOwn(userId: string, publicId: string, viewer: Viewer, requestedLocale: string): Promise<OwnRole> {
      const locale = localeOf(requestedLocale)
      assertOwner(await repo.findOwnership(publicId), userId)
      const role = await catalogue.getRole(publicId, viewer, locale)
      if (!role) throw AppError.notFound('No such character')
      return { role, form: await editable(publicId, locale) }
    },

    /**
     * Reads a Character Card into a form draft, saving nothing: the user reviews it first. The
     * card's picture comes back whole, as the avatar is kept (lossless WebP data URL, bounded,
     * metadata dropped: ADR 042), for the form to upload with the rest.
     */
    async importCard(
      userId: string,
      bytes: Buffer,
      fileName: string | undefined,
      requestedLocale: string,
    ): Promise<ImportResult> {
      const locale = localeOf(requestedLocale)
      let result: ReturnType<typeof importCard>
      let format: ReturnType<typeof detectCardFormat>
      try {
        format = detectCardFormat(bytes)
        // A card that does not say which language its texts are in is taken to be in the importer's.
        result = importCard(bytes, fileName, locale)
      } catch (error) {
        if (error instanceof CardError) throw cardErrorToAppError(error)
        throw error
      }
      // One bound for lorebooks everywhere (the codec's is the same number; a test keeps it so).
      const entries = result.draft.characterBook?.entries.length ?? 0
      if (entries > CHARACTER_LIMITS.lorebookEntries) {
        throw cardErrorToAppError(
          new CardError('too_large', 'The lorebook has too many entries', {
            field: 'character_book.entries',
            limit: CHARACTER_LIMITS.lorebookEntries,
          }),
        )
      }
      const report = {
        repaired: [...result.report.repaired],
        ignored: [...result.report.ignored],
        problems: [] as FieldProblem[],
      }
      let avatar: string | null = null
      if (result.draft.avatar) {
        try {
          const webp = await images.preview(result.draft.avatar, AVATAR, { accept: UPLOAD_FORMATS })
          avatar = `data:image/webp;base64,${webp.toString('base64')}`
        } catch {
          report.ignored.push('avatar_unreadable')
        }
      }
      const { tagNames, ...form } = formOfDraft(result.draft)
      const tags = matchCardTags(await repo.allTags(), tagNames, (tag) => localName(tag.names, locale))
      const draft = { ...form, tags }
      // Nothing is cut: what the save would refuse is kept, listed here and marked in the form.
      report.problems = problemsOfDraft(draft)
      // The card's other files wait on the server for the save (ADR 047); the form only counts them.
      const files = result.draft.files
      const cardFiles = files.length > 0 ? { token: await held.hold(userId, files), count: files.length } : null
      return { draft, avatar, cardFiles, version: result.version, format, report }
    },

    /**
     * A character as a Character Card: any character the viewer may see (a private one only by its
     * creator; an adult one only after the age confirmation, like its page).
     */
    async exportCard(publicId: string, viewer: Viewer, format: CardFileExtension) {
      const row = await repo.findFull(publicId)
      if (!row || (row.visibility === 'private' && row.creatorId !== viewer.userId)) {
        throw AppError.notFound('No such character')
      }
      if (row.isAdult && !viewer.adultConfirmed) throw AppError.forbidden('Age confirmation required')
      const tags: TagNames[] = await repo.tagsOfRoles([row.id])
      // JSON has nowhere to put files: they are not even read for it.
      const files = format === 'json' ? [] : await repo.filesOf(row.id)
      const draft = draftOfCharacter({
        ...row,
        tagNames: tags.map((t) => localName(t.names, DEFAULT_LOCALE)),
        creatorUsername: row.creatorUsername,
        translations: cardTranslationsOf(await texts.authorTranslationsOf(row.id)),
        files,
      })
      const fileName = fileNameFor(row.name, format)
      const isPrivate = row.visibility === 'private'
      if (format === 'json') return { fileName, card: exportCardJson(draft), private: isPrivate }
      // The kept original (older characters: the 512x512 picture they have).
      const avatar = row.avatarImageId ? await images.find(row.avatarImageId) : null
      if (format === 'charx')
        return { fileName, charx: await exportCardCharx(draft, avatar?.bytes), private: isPrivate }
      return { fileName, png: await exportCardPng(draft, avatar?.bytes), private: isPrivate }
    },

    /** Stores a report for an operator; anyone who may see the character may report it. */
    async reportRole(publicId: string, viewer: Viewer, report: { reason: ReportReason; text: string }) {
      const row = await repo.findOwnership(publicId)
      if (!row || (row.visibility === 'private' && row.creatorId !== viewer.userId)) {
        throw AppError.notFound('No such character')
      }
      await repo.insertReport({ roleId: row.id, reporterId: viewer.userId, reason: report.reason, text: report.text })
    },
  }
}

export type CharactersService = ReturnType<typeof createCharactersService>

/** The largest card file the import route reads, for its body limit. */
export const MAX_CARD_FILE_BYTES = CARD_LIMITS.maxFileBytes
