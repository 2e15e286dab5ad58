import {
  type CardExtras,
  CHARACTER_LIMITS,
  CHARACTER_TEXT_FIELDS,
  type CharacterFields,
  checkCharacterFields,
  type FieldProblem,
  type Lorebook,
  normalizeTagName,
  tagKey,
  VISIBILITIES,
  type Visibility,
} from '#contracts/characters.ts'
import { cardExtrasSchema, lorebookSchema } from '#contracts/characters-schemas.ts'
import { isLocale, type Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import { scanJson } from '#server/lib/json-text.ts'
import { type Upload, uploadOf } from './multipart.ts'

/**
 * The character form as `POST /api/addRole` and `PUT /api/roles/:id` receive it (multipart):
 *
 * - text parts: `name`, `introduction`, `scenario`, `personality`, `details`, `firstMessage`,
 *   `exampleDialogue`, `visibility` (`public` | `private`), `isAdult` (`true` | `false`),
 *   `sourceLanguage` (a locale: the language of these texts; absent: the creator's interface
 *   language on create, unchanged on edit);
 * - repeated parts: `alternateGreetings`, `tags` (an existing tag's slug or name, or a new name);
 * - JSON parts: `lorebook` (a lorebook, or `null` to remove it), `cardExtras`;
 * - files: `avatar`, `banner` (5 MiB each, any raster image); `removeAvatar`, `removeBanner`
 *   (`true`) drop the current one on edit;
 * - `cardFiles`: the import's token for the card's files held for the user (ADR 047), which
 *   replace the character's; `removeCardFiles` (`true`) removes them.
 *
 * On edit, an absent file, `lorebook`, `cardExtras` or `cardFiles` part keeps what the character has.
 */
export type RoleForm = {
  fields: CharacterFields
  /** The language the texts are written in; undefined: not sent (ADR 039). */
  sourceLanguage: Locale | undefined
  /** undefined: not sent (keep); null: remove. */
  lorebook: Lorebook | null | undefined
  cardExtras: CardExtras | undefined
  avatar: Upload | null
  banner: Upload | null
  removeAvatar: boolean
  removeBanner: boolean
  /** The card's files: the import's token (take them), `remove`, or undefined (keep). */
  cardFiles: { token: string } | 'remove' | undefined
}

/** The import's token for the files it holds (card-files.ts). */
const CARD_FILES_TOKEN = /^[A-Za-z0-9_-]{16,64}$/

function text(form: FormData, name: string): string {
  const value = form.get(name)
  return typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : ''
}

function texts(form: FormData, name: string): string[] {
  return form
    .getAll(name)
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.replace(/\r\n?/g, '\n').trim())
    .filter(Boolean)
}

function flag(form: FormData, name: string): boolean {
  const value = form.get(name)
  return value === 'true' || value === '1' || value === 'on'
}

/** Tags differing only in case, width or spacing are sent once (the repo merges the rest by tag). */
function uniqueTags(list: string[]): string[] {
  const seen = new Set<string>()
  return list.filter((item) => {
    const key = tagKey(item)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** A JSON part checked against its schema and byte limit; problems are added to the list. */
function jsonPart<T>(
  form: FormData,
  name: string,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  maxBytes: number,
  problems: FieldProblem[],
  maxEntries?: number,
): T | null | undefined {
  const value = form.get(name)
  if (value === null) return undefined
  if (typeof value !== 'string') {
    problems.push({ path: name, code: 'invalid' })
    return undefined
  }
  if (value.trim() === '' || value.trim() === 'null') return null
  if (Buffer.byteLength(value) > maxBytes) {
    problems.push({ path: name, code: 'too_large', limit: maxBytes })
    return undefined
  }
  // A `\u0000` escape would put a NUL in the stored JSON, which PostgreSQL refuses.
  if (scanJson(value, Number.POSITIVE_INFINITY) === 'nul') {
    problems.push({ path: name, code: 'invalid' })
    return undefined
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    problems.push({ path: name, code: 'invalid' })
    return undefined
  }
  // Said as such rather than as a schema refusal ("not valid"), like the form says it.
  const entries = (parsed as { entries?: unknown } | null)?.entries
  if (maxEntries !== undefined && Array.isArray(entries) && entries.length > maxEntries) {
    problems.push({ path: name, code: 'too_many', limit: maxEntries })
    return undefined
  }
  const result = schema.safeParse(parsed)
  if (!result.success) {
    problems.push({ path: name, code: 'invalid' })
    return undefined
  }
  return result.data
}

async function filePart(form: FormData, name: string, problems: FieldProblem[]): Promise<Upload | null> {
  const value = form.get(name)
  if (typeof value === 'string') {
    if (value !== '') problems.push({ path: name, code: 'invalid' })
    return null
  }
  if (value && value.size > CHARACTER_LIMITS.imageBytes) {
    problems.push({ path: name, code: 'file_too_large', limit: CHARACTER_LIMITS.imageBytes })
    return null
  }
  return uploadOf(value)
}

/** The error every refused field leads to; `details` lists each problem by field for the form. */
export function fieldsError(problems: FieldProblem[]): AppError {
  const details = problems.map((p) => ({ ...p, message: p.code, in: 'body' }))
  if (problems.some((p) => p.code === 'file_too_large')) {
    return new AppError(413, 'PAYLOAD_TOO_LARGE', 'An image is over the size limit.', details)
  }
  if (problems.every((p) => p.code === 'not_an_image')) {
    return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This is not a supported image.', details)
  }
  return new AppError(400, 'VALIDATION_ERROR', 'Some fields are not valid.', details)
}

/** Reads and checks the whole form; throws with every problem at once so the form can show them all. */
export async function parseRoleForm(form: FormData): Promise<RoleForm> {
  const problems: FieldProblem[] = []
  const visibility = text(form, 'visibility') || 'public'
  const fields: CharacterFields = {
    name: text(form, 'name'),
    introduction: text(form, 'introduction'),
    scenario: text(form, 'scenario'),
    personality: text(form, 'personality'),
    details: text(form, 'details'),
    firstMessage: text(form, 'firstMessage'),
    exampleDialogue: text(form, 'exampleDialogue'),
    alternateGreetings: texts(form, 'alternateGreetings'),
    tags: uniqueTags(
      texts(form, 'tags')
        .map(normalizeTagName)
        .filter((tag) => tag !== ''),
    ),
    visibility: (VISIBILITIES as readonly string[]).includes(visibility) ? (visibility as Visibility) : 'public',
    isAdult: flag(form, 'isAdult'),
  }
  if (!(VISIBILITIES as readonly string[]).includes(visibility)) problems.push({ path: 'visibility', code: 'invalid' })
  const language = text(form, 'sourceLanguage')
  if (language !== '' && !isLocale(language)) problems.push({ path: 'sourceLanguage', code: 'invalid' })
  for (const field of CHARACTER_TEXT_FIELDS) {
    if (form.get(field) instanceof File) problems.push({ path: field, code: 'invalid' })
  }
  problems.push(...checkCharacterFields(fields))
  const lorebook = jsonPart(
    form,
    'lorebook',
    lorebookSchema,
    CHARACTER_LIMITS.lorebookBytes,
    problems,
    CHARACTER_LIMITS.lorebookEntries,
  )
  const cardExtras = jsonPart(form, 'cardExtras', cardExtrasSchema, CHARACTER_LIMITS.cardExtrasBytes, problems)
  const avatar = await filePart(form, 'avatar', problems)
  const banner = await filePart(form, 'banner', problems)
  const token = text(form, 'cardFiles')
  if (token !== '' && !CARD_FILES_TOKEN.test(token)) problems.push({ path: 'cardFiles', code: 'invalid' })
  if (problems.length > 0) throw fieldsError(problems)
  return {
    fields,
    sourceLanguage: isLocale(language) ? language : undefined,
    lorebook,
    cardExtras: cardExtras ?? undefined,
    avatar,
    banner,
    removeAvatar: flag(form, 'removeAvatar'),
    removeBanner: flag(form, 'removeBanner'),
    cardFiles: token !== '' ? { token } : flag(form, 'removeCardFiles') ? 'remove' : undefined,
  }
}
