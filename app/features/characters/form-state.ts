import type { Tag } from '#contracts/catalogue.ts'
import {
  type CardExtras,
  CHARACTER_LIMITS,
  type CharacterFields,
  type CharacterTextField,
  checkCharacterFields,
  type EditableRole,
  type FieldProblem,
  type ImportResult,
  type Lorebook,
  type Visibility,
} from '#contracts/characters.ts'

/** A picture of the form: the stored one (kept), a newly chosen one (a data URL, so drafts can keep it), or none. */
export type ImageValue =
  | { kind: 'current'; url: string }
  | { kind: 'new'; dataUrl: string; name: string; size: number }
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
}

export function emptyForm(): CharacterFormState {
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
  }
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
    tags: draft.tags,
    isAdult: draft.isAdult,
    lorebook: draft.lorebook,
    cardExtras: draft.cardExtras,
    avatar: result.avatar
      ? { kind: 'new', dataUrl: result.avatar, name: 'avatar.webp', size: Math.ceil((result.avatar.length * 3) / 4) }
      : current.avatar,
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

/**
 * The problems the server would find, checked while typing. Greeting paths use the form's own
 * indexes (blank greetings are dropped only when sending).
 */
export function problemsOf(state: CharacterFormState): FieldProblem[] {
  const fields = fieldsOf(state)
  const problems = checkCharacterFields({ ...fields, alternateGreetings: state.alternateGreetings })
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
  body.append('lorebook', JSON.stringify(state.lorebook))
  if (state.cardExtras) body.append('cardExtras', JSON.stringify(state.cardExtras))
  for (const key of ['avatar', 'banner'] as const) {
    const image = state[key]
    if (image.kind === 'new') body.append(key, dataUrlToBlob(image.dataUrl), image.name)
    else if (image.kind === 'none' && editing) body.append(key === 'avatar' ? 'removeAvatar' : 'removeBanner', 'true')
  }
  return body
}

/** The tag the user meant by what they typed: one of the known tags (slug or name), else a new one. */
export function tagFor(typed: string, known: Tag[]): FormTag {
  const wanted = typed.trim().toLocaleLowerCase()
  const tag = known.find((t) => t.slug === wanted || t.name.toLocaleLowerCase() === wanted)
  return tag ? { slug: tag.slug, name: tag.name } : { slug: null, name: typed.trim() }
}
