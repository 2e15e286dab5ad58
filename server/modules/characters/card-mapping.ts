import type { CardExtras, CharacterDraftForm, Lorebook } from '#contracts/characters.ts'
import { cardExtrasSchema } from '#contracts/characters-schemas.ts'
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '#contracts/locales.ts'
import { checkTranslationTexts } from '#contracts/role-texts.ts'
import type { CardFile, CardTranslation, CardTranslations, CharacterDraft } from '#server/modules/cards/card-types.ts'
import type { RoleForm } from './role-form.ts'

/**
 * How our character's fields and a Character Card's meet. The page's introduction is the card's
 * `creator_notes` (the text shown to people, not sent to the model); the page's details are the
 * card's `description`. Card fields the form does not show travel in `cardExtras`, so an imported
 * card exports as it came in. The card's languages (ADR 041) travel there too, from the import to
 * the save, which stores them as the character's source language and translations.
 */

/** What a stored character holds, as the export reads it. */
export type CharacterForCard = {
  name: string
  introduction: string
  scenario: string
  personality: string
  description: string
  firstMessage: string
  alternateGreetings: string[]
  exampleDialogue: string
  isAdult: boolean
  /** Tag names (one per tag, in English when it has one). */
  tagNames: string[]
  characterBook: Lorebook | null
  cardExtras: Partial<CardExtras>
  creatorUsername: string | null
  createdAt: Date
  /** The locale its texts are written in (`roles.source_language`). */
  sourceLanguage: string
  /** Its creator's translations by locale (machine ones are not exported: ADR 041). */
  translations: CardTranslations
  /** The files its card carried (`role_assets`, ADR 047), in order; none when not given. */
  files?: CardFile[]
}

/** Reads stored card extras leniently: anything malformed becomes the default. */
export function readCardExtras(value: unknown): CardExtras {
  const parsed = cardExtrasSchema.safeParse(value ?? {})
  return parsed.success ? parsed.data : cardExtrasSchema.parse({})
}

/** The creator's translations as the role-texts service lists them -> a card's, by locale. */
export function cardTranslationsOf(rows: ({ locale: string } & CardTranslation)[]): CardTranslations {
  const translations: CardTranslations = {}
  for (const { locale, name, introduction, scenario, firstMessage, alternateGreetings } of rows) {
    if (isLocale(locale)) translations[locale] = { name, introduction, scenario, firstMessage, alternateGreetings }
  }
  return translations
}

export function draftOfCharacter(role: CharacterForCard): CharacterDraft {
  const extras = readCardExtras(role.cardExtras)
  const sourceLanguage = isLocale(role.sourceLanguage) ? role.sourceLanguage : DEFAULT_LOCALE
  // A translation into the character's own language is not shown (a creator switched languages).
  const { [sourceLanguage]: _own, ...translations } = role.translations
  return {
    name: role.name,
    description: role.description,
    personality: role.personality,
    scenario: role.scenario,
    firstMessage: role.firstMessage,
    alternateGreetings: role.alternateGreetings,
    groupOnlyGreetings: extras.groupOnlyGreetings,
    exampleDialogue: role.exampleDialogue,
    systemPrompt: extras.systemPrompt,
    postHistoryInstructions: extras.postHistoryInstructions,
    creatorNotes: role.introduction,
    creatorNotesMultilingual: extras.creatorNotesMultilingual,
    sourceLanguage,
    translations,
    nickname: extras.nickname,
    source: extras.source,
    tags: role.tagNames,
    // The card's creator as it was, empty too; a character made here is its author's.
    creator: extras.creator ?? role.creatorUsername ?? '',
    characterVersion: extras.characterVersion,
    creationDate: extras.creationDate ?? Math.floor(role.createdAt.getTime() / 1000),
    modificationDate: extras.modificationDate,
    nsfw: role.isAdult,
    characterBook: role.characterBook,
    extensions: extras.extensions,
    assets: extras.assets,
    otherCardFields: extras.otherCardFields,
    otherDataFields: extras.otherDataFields,
    files: role.files ?? [],
    avatar: null,
  }
}

/** What the form is filled with from an imported card (tags are matched to ours by the service). */
export function formOfDraft(draft: CharacterDraft): Omit<CharacterDraftForm, 'tags'> & { tagNames: string[] } {
  const extras: CardExtras = {
    systemPrompt: draft.systemPrompt,
    postHistoryInstructions: draft.postHistoryInstructions,
    creator: draft.creator,
    characterVersion: draft.characterVersion,
    extensions: draft.extensions,
    groupOnlyGreetings: draft.groupOnlyGreetings,
    assets: draft.assets,
  }
  if (draft.nickname !== undefined) extras.nickname = draft.nickname
  if (draft.source !== undefined) extras.source = draft.source
  if (draft.creatorNotesMultilingual !== undefined) extras.creatorNotesMultilingual = draft.creatorNotesMultilingual
  if (draft.creationDate !== undefined) extras.creationDate = draft.creationDate
  if (draft.modificationDate !== undefined) extras.modificationDate = draft.modificationDate
  if (draft.otherCardFields !== undefined) extras.otherCardFields = draft.otherCardFields
  if (draft.otherDataFields !== undefined) extras.otherDataFields = draft.otherDataFields
  extras.sourceLanguage = draft.sourceLanguage
  extras.translations = LOCALES.flatMap((locale) => {
    const texts = draft.translations[locale]
    return texts ? [{ locale, texts }] : []
  })
  return {
    name: draft.name,
    introduction: draft.creatorNotes,
    scenario: draft.scenario,
    personality: draft.personality,
    details: draft.description,
    firstMessage: draft.firstMessage,
    alternateGreetings: draft.alternateGreetings,
    exampleDialogue: draft.exampleDialogue,
    tagNames: draft.tags,
    isAdult: draft.nsfw,
    lorebook: draft.characterBook,
    cardExtras: extras,
  }
}

/** The card's languages a form carried (ADR 041): its translations still to save. */
export type CardLanguages = { locale: Locale; texts: CardTranslation }[]

/**
 * Takes the card's languages out of a submitted form's card extras: the form keeps its own
 * `sourceLanguage` if it names one, else takes the card's; the extras to store lose both fields.
 * The translations returned are those within the form's limits (the save leaves out the one into
 * the character's own language once it knows that language).
 */
export function takeCardLanguages(form: RoleForm): { form: RoleForm; translations: CardLanguages } {
  if (!form.cardExtras) return { form, translations: [] }
  const { sourceLanguage: cardLanguage, translations = [], ...cardExtras } = form.cardExtras
  const usable = translations.filter((t) => checkTranslationTexts(t.texts).length === 0)
  return { form: { ...form, sourceLanguage: form.sourceLanguage ?? cardLanguage, cardExtras }, translations: usable }
}

export type CardFileExtension = 'png' | 'json' | 'charx'

/**
 * A file name for a download, in the character's own script: its name without what file systems
 * refuse (`/ \\ : * ? " < > |`), control and format characters (a right-to-left override could
 * disguise the extension), at most 60 characters; `character` when nothing is left.
 */
export function fileNameFor(name: string, extension: CardFileExtension): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\:*?"<>|]+/gu, '')
    .trim()
    .replace(/\s+/gu, '_')
    .replace(/^[._]+|[._]+$/g, '')
  const base = Array.from(cleaned).slice(0, 60).join('')
  return `${base || 'character'}.${extension}`
}

/** The same name in ASCII (accents dropped, other scripts left out), for `filename=` of older clients. */
export function asciiFileNameOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.')
  const base = fileName
    .slice(0, dot)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9 _-]+/g, '')
    .replace(/^[_ -]+|[_ -]+$/g, '')
  return `${base || 'character'}${fileName.slice(dot)}`
}

/**
 * `Content-Disposition` of a download (RFC 6266): an ASCII `filename=` for old clients and the
 * name itself as `filename*=UTF-8''...` (RFC 5987: percent-encoded UTF-8, `'()*` included), which
 * browsers prefer.
 */
export function attachmentDisposition(fileName: string): string {
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return `attachment; filename="${asciiFileNameOf(fileName)}"; filename*=UTF-8''${encoded}`
}
