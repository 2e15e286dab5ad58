import type { Tag } from '#contracts/catalogue.ts'
import {
  type CardExtras,
  CHARACTER_LIMITS,
  type CharacterFields,
  type CharacterTextField,
  checkCardParts,
  checkCharacterFields,
  type EditableRole,
  type FieldProblem,
  type ImportResult,
  type Lorebook,
  normalizeTagName,
  tagKey,
  type Visibility,
} from '#contracts/characters.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import type { RoleTexts } from '#contracts/role-texts.ts'

/** A picture of the form: the stored one (kept), a newly chosen one (a data URL, so drafts can keep it), or none. */
export type ImageValue =
  | { kind: 'current'; url: string }
  | { kind: 'new'; dataUrl: string; name: string; size: number }
  | { kind: 'none' }

/**
 * The files a card carried besides its picture (ADR 047): the character's stored ones (kept, not
 * sent), an import's (held on the server; the save sends the token), or none (on edit: removed).
 */
export type CardFilesValue =
  | { kind: 'kept'; count: number }
  | { kind: 'new'; token: string; count: number }
  | { kind: 'none' }

/** A tag of the form: an existing one (slug) or a new name (slug null). */
export type FormTag = { slug: string | null; name: string }

export type CharacterFormState = Record<CharacterTextField, string> & {
  alternateGreetings: string[]
  tags: FormTag[]
  visibility: Visibility
  isAdult: boolean
  lorebook: Lorebook | null
  /** Card fields the form does not show; null when there are none to send (kept as they are on edit). */
  cardExtras: CardExtras | null
  avatar: ImageValue
  banner: ImageValue
  cardFiles: CardFilesValue
  /** The language the texts are written in (ADR 039); a new character's is the interface's. */
  sourceLanguage: Locale
}

export function emptyForm(locale: Locale = DEFAULT_LOCALE): CharacterFormState {
  return {
    name: '',
    introduction: '',
    scenario: '',
    personality: '',
    details: '',
    firstMessage: '',
    exampleDialogue: '',
    alternateGreetings: [],
    tags: [],
    visibility: 'public',
    isAdult: false,
    lorebook: null,
    cardExtras: null,
    avatar: { kind: 'none' },
    banner: { kind: 'none' },
    cardFiles: { kind: 'none' },
    sourceLanguage: locale,
  }
}

const imageOf = (url: string | null): ImageValue => (url ? { kind: 'current', url } : { kind: 'none' })

export function formOfEditable(role: EditableRole): CharacterFormState {
  return {
    name: role.name,
    introduction: role.introduction,
    scenario: role.scenario,
    personality: role.personality,
    details: role.details,
    firstMessage: role.firstMessage,
    exampleDialogue: role.exampleDialogue,
    alternateGreetings: role.alternateGreetings,
    tags: role.tags.map((tag) => ({ slug: tag.slug, name: tag.name })),
    visibility: role.visibility,
    isAdult: role.isAdult,
    lorebook: role.lorebook,
    cardExtras: null,
    avatar: imageOf(role.avatarUrl),
    banner: imageOf(role.bannerUrl),
    cardFiles: role.cardFileCount > 0 ? { kind: 'kept', count: role.cardFileCount } : { kind: 'none' },
    sourceLanguage: role.sourceLanguage,
  }
}

/** What tells two tags of the form apart (and keys their chips): the slug, else the new name's tagKey. */
export function formTagKey(tag: FormTag): string {
  return tag.slug ?? `new:${tagKey(tag.name)}`
}

/** Each tag once (the first of those differing only in case or spacing); blank names dropped. */
export function uniqueFormTags(tags: FormTag[]): FormTag[] {
  const seen = new Set<string>()
  return tags.filter((tag) => {
    const key = formTagKey(tag)
    if (tag.slug === null && tagKey(tag.name) === '') return false
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * A kept draft as the form shows it: an older version's draft has no source language (the form's
 * own then), no card files (the form's own) and may list a tag twice.
 */
export function withSourceLanguage(restored: CharacterFormState, initial: CharacterFormState): CharacterFormState {
  const tags = uniqueFormTags(restored.tags)
  const cardFiles = restored.cardFiles ?? initial.cardFiles
  return isLocale(restored.sourceLanguage)
    ? { ...restored, tags, cardFiles }
    : { ...restored, tags, cardFiles, sourceLanguage: initial.sourceLanguage }
}

/** The form filled from an imported card. The banner and visibility stay as the user had them. */
export function formOfImport(result: ImportResult, current: CharacterFormState): CharacterFormState {
  const { draft } = result
  return {
    ...current,
    name: draft.name,
    introduction: draft.introduction,
    scenario: draft.scenario,
    personality: draft.personality,
    details: draft.details,
    firstMessage: draft.firstMessage,
    exampleDialogue: draft.exampleDialogue,
    alternateGreetings: draft.alternateGreetings,
    tags: uniqueFormTags(draft.tags),
    isAdult: draft.isAdult,
    lorebook: draft.lorebook,
    cardExtras: draft.cardExtras,
    // The card says which language its texts are in (ADR 041); else the form keeps its own.
    sourceLanguage: draft.cardExtras?.sourceLanguage ?? current.sourceLanguage,
    avatar: result.avatar
      ? { kind: 'new', dataUrl: result.avatar, name: 'avatar.webp', size: Math.ceil((result.avatar.length * 3) / 4) }
      : current.avatar,
    // The card's files replace the character's, as its extras do.
    cardFiles: result.cardFiles ? { kind: 'new', ...result.cardFiles } : { kind: 'none' },
  }
}

export function fieldsOf(state: CharacterFormState): CharacterFields {
  return {
    name: state.name.trim(),
    introduction: state.introduction.trim(),
    scenario: state.scenario.trim(),
    personality: state.personality.trim(),
    details: state.details.trim(),
    firstMessage: state.firstMessage.trim(),
    exampleDialogue: state.exampleDialogue.trim(),
    alternateGreetings: state.alternateGreetings.map((g) => g.trim()).filter(Boolean),
    tags: state.tags.map((tag) => tag.slug ?? tag.name),
    visibility: state.visibility,
    isAdult: state.isAdult,
  }
}

/** The texts a translation translates, as the form would save them. */
export function sourceTextsOf(state: CharacterFormState): RoleTexts {
  const { name, introduction, scenario, firstMessage, alternateGreetings } = fieldsOf(state)
  return { name, introduction, scenario, firstMessage, alternateGreetings }
}

/** The last lorebook and card extras weighed: typing leaves them as they are, so they are weighed once. */
let weighed: { lorebook: Lorebook | null; cardExtras: CardExtras | null; problems: FieldProblem[] } | null = null

function cardPartsProblems(lorebook: Lorebook | null, cardExtras: CardExtras | null): FieldProblem[] {
  if (weighed?.lorebook !== lorebook || weighed.cardExtras !== cardExtras) {
    weighed = { lorebook, cardExtras, problems: checkCardParts({ lorebook, cardExtras }) }
  }
  return weighed.problems
}

/**
 * The problems the server would find, checked while typing (and so shown as soon as a card fills
 * the form). Greeting paths use the form's own indexes (blank greetings are dropped only when
 * sending).
 */
export function problemsOf(state: CharacterFormState): FieldProblem[] {
  const fields = fieldsOf(state)
  const problems = checkCharacterFields({ ...fields, alternateGreetings: state.alternateGreetings })
  problems.push(...cardPartsProblems(state.lorebook, state.cardExtras))
  for (const path of ['avatar', 'banner'] as const) {
    const image = state[path]
    if (image.kind === 'new' && image.size > CHARACTER_LIMITS.imageBytes) {
      problems.push({ path, code: 'file_too_large', limit: CHARACTER_LIMITS.imageBytes })
    }
  }
  return problems
}

export function dataUrlToBlob(dataUrl: string): Blob {
  const [head = '', body = ''] = dataUrl.split(',', 2)
  const type = /data:([^;,]+)/.exec(head)?.[1] ?? 'application/octet-stream'
  const binary = atob(body)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Blob([bytes], { type })
}

/** The multipart body of POST /api/addRole and PUT /api/roles/:id (see server/modules/characters). */
export function formDataOf(state: CharacterFormState, editing: boolean): FormData {
  const fields = fieldsOf(state)
  const body = new FormData()
  for (const key of [
    'name',
    'introduction',
    'scenario',
    'personality',
    'details',
    'firstMessage',
    'exampleDialogue',
  ] as const) {
    body.append(key, fields[key])
  }
  for (const greeting of fields.alternateGreetings) body.append('alternateGreetings', greeting)
  for (const tag of fields.tags) body.append('tags', tag)
  body.append('visibility', fields.visibility)
  body.append('isAdult', String(fields.isAdult))
  body.append('sourceLanguage', state.sourceLanguage)
  body.append('lorebook', JSON.stringify(state.lorebook))
  if (state.cardExtras) body.append('cardExtras', JSON.stringify(state.cardExtras))
  for (const key of ['avatar', 'banner'] as const) {
    const image = state[key]
    if (image.kind === 'new') body.append(key, dataUrlToBlob(image.dataUrl), image.name)
    else if (image.kind === 'none' && editing) body.append(key === 'avatar' ? 'removeAvatar' : 'removeBanner', 'true')
  }
  if (state.cardFiles.kind === 'new') body.append('cardFiles', state.cardFiles.token)
  else if (state.cardFiles.kind === 'none' && editing) body.append('removeCardFiles', 'true')
  return body
}

/**
 * The tag the user meant by what they typed: one of the known tags (slug, or name whatever its
 * case or spacing), else a new one.
 */
export function tagFor(typed: string, known: Tag[]): FormTag {
  const wanted = tagKey(typed)
  const tag = known.find((t) => t.slug === wanted || tagKey(t.name) === wanted)
  return tag ? { slug: tag.slug, name: tag.name } : { slug: null, name: normalizeTagName(typed) }
}
