import type { z } from 'zod'
import type {
  cardExtrasSchema,
  characterDraftSchema,
  editableRoleSchema,
  importResultSchema,
  lorebookSchema,
  myRoleSchema,
  ownRoleSchema,
} from './characters-schemas.ts'

// Characters that users create, import and export (issue 8). Limits and the field check live here
// so the form (in the browser) and the server refuse exactly the same things.

const MiB = 1024 * 1024

export const CHARACTER_LIMITS = {
  name: 80,
  introduction: 5_000,
  scenario: 10_000,
  personality: 10_000,
  details: 30_000,
  firstMessage: 10_000,
  /** Each alternate greeting. */
  greeting: 10_000,
  greetings: 30,
  exampleDialogue: 30_000,
  tags: 10,
  tagName: 30,
  /** Tags one user has made (typed new) that still exist: spam cannot flood the tag list. */
  userMadeTags: 30,
  /** An uploaded avatar or banner, before it is re-encoded. */
  imageBytes: 5 * MiB,
  lorebookEntries: 1_000,
  /** The lorebook as JSON (UTF-8 bytes). */
  lorebookBytes: 2 * MiB,
  /** The card fields the form does not show (system prompt, extensions, ...), as JSON. */
  cardExtrasBytes: 512 * 1024,
  reportText: 2_000,
} as const

/** Text fields of the form, each limited to CHARACTER_LIMITS[field] characters. */
export const CHARACTER_TEXT_FIELDS = [
  'name',
  'introduction',
  'scenario',
  'personality',
  'details',
  'firstMessage',
  'exampleDialogue',
] as const
export type CharacterTextField = (typeof CHARACTER_TEXT_FIELDS)[number]

export const VISIBILITIES = ['public', 'private'] as const
export type Visibility = (typeof VISIBILITIES)[number]

/** What the form sends (besides the images, lorebook and card extras). Tags are slugs or new names. */
export type CharacterFields = Record<CharacterTextField, string> & {
  alternateGreetings: string[]
  tags: string[]
  visibility: Visibility
  isAdult: boolean
}

/**
 * Why a field was refused. `path` is the field (`name`), or a list item (`alternateGreetings.2`,
 * `tags.0`); `limit` is the bound that was crossed. The client words each code in the user's
 * language (`characters-edit:fieldErrors.<code>`).
 */
export const FIELD_PROBLEM_CODES = [
  'required',
  'too_long',
  'too_many',
  'invalid',
  'file_too_large',
  'not_an_image',
] as const
type FieldProblemCode = (typeof FIELD_PROBLEM_CODES)[number]
export type FieldProblem = { path: string; code: FieldProblemCode; limit?: number }

/** Unicode code points (a simple emoji is one, not two UTF-16 units), the same in the browser and on the server. */
export function textLength(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/**
 * A tag name as stored and compared: compatibility forms folded (NFKC: full-width letters,
 * ligatures), invisible and direction-changing characters dropped, runs of white space made one
 * space, and trimmed. The zero-width joiner stays: emoji sequences need it.
 */
export function normalizeTagName(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\p{Cc}\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
}

/** A tag is a word or two, never an address to advertise (`evil.example`, `www.x`, `a://b`, `x@y`). */
function tagLooksLikeLink(name: string): boolean {
  return /:\/\/|www\.|@|[\p{L}\p{N}-]\.\p{L}{2,}/iu.test(name)
}

/** Checks the form's fields against CHARACTER_LIMITS; an empty list means they may be saved. */
export function checkCharacterFields(fields: CharacterFields): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (fields.name.trim() === '') problems.push({ path: 'name', code: 'required' })
  for (const field of CHARACTER_TEXT_FIELDS) {
    if (textLength(fields[field]) > CHARACTER_LIMITS[field]) {
      problems.push({ path: field, code: 'too_long', limit: CHARACTER_LIMITS[field] })
    }
  }
  if (fields.alternateGreetings.length > CHARACTER_LIMITS.greetings) {
    problems.push({ path: 'alternateGreetings', code: 'too_many', limit: CHARACTER_LIMITS.greetings })
  }
  fields.alternateGreetings.forEach((greeting, i) => {
    if (textLength(greeting) > CHARACTER_LIMITS.greeting) {
      problems.push({ path: `alternateGreetings.${i}`, code: 'too_long', limit: CHARACTER_LIMITS.greeting })
    }
  })
  if (fields.tags.length > CHARACTER_LIMITS.tags) {
    problems.push({ path: 'tags', code: 'too_many', limit: CHARACTER_LIMITS.tags })
  }
  fields.tags.forEach((tag, i) => {
    if (textLength(tag) > CHARACTER_LIMITS.tagName) {
      problems.push({ path: `tags.${i}`, code: 'too_long', limit: CHARACTER_LIMITS.tagName })
    } else if (!/[\p{L}\p{N}]/u.test(tag) || tagLooksLikeLink(tag)) {
      problems.push({ path: `tags.${i}`, code: 'invalid' })
    }
  })
  if (!(VISIBILITIES as readonly string[]).includes(fields.visibility)) {
    problems.push({ path: 'visibility', code: 'invalid' })
  }
  return problems
}

/** Why someone reports a character; the operator reads the free text beside it. */
export const REPORT_REASONS = [
  'minor_safety',
  'unmarked_adult',
  'illegal',
  'hate',
  'violence',
  'impersonation',
  'spam',
  'other',
] as const
export type ReportReason = (typeof REPORT_REASONS)[number]

/**
 * What an import report may say (`reason` or `reason:path`): the card codec's repair and ignore
 * reasons (server/modules/cards/card-types.ts; a test keeps the lists equal) and ours.
 */
export const CARD_REPORT_REASONS = [
  'missing_field',
  'null_field',
  'string_as_list',
  'number_as_string',
  'string_as_number',
  'string_as_boolean',
  'object_as_list',
  'legacy_field',
  'name_from_filename',
  'missing_spec',
  'newer_spec_version',
  'json_not_base64',
  'ccv3_unreadable',
  'icon_from_charx',
  'unknown_field',
  'wrong_type',
  'asset_dropped',
  'avatar_missing',
  'avatar_too_large',
  'png_asset_chunks',
  'extensions_too_deep',
  /** Ours: the card's picture is not an image the images service reads. */
  'avatar_unreadable',
] as const
export type CardReportReason = (typeof CARD_REPORT_REASONS)[number]

/** `details.reason` of a refused import (the card codec's CardError codes). */
export const CARD_IMPORT_ERRORS = [
  'empty_file',
  'not_a_card',
  'truncated_png',
  'corrupt_png',
  'bad_base64',
  'bad_json',
  'too_large',
  'zip_too_large',
  'corrupt_zip',
  'unsupported',
] as const
export type CardImportError = (typeof CARD_IMPORT_ERRORS)[number]

export type Lorebook = z.infer<typeof lorebookSchema>
export type CardExtras = z.infer<typeof cardExtrasSchema>
export type CharacterDraftForm = z.infer<typeof characterDraftSchema>
export type ImportResult = z.infer<typeof importResultSchema>
export type EditableRole = z.infer<typeof editableRoleSchema>
export type MyRole = z.infer<typeof myRoleSchema>
export type OwnRole = z.infer<typeof ownRoleSchema>
