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

/**
 * Measured on real cards (`node scripts/measure-cards.ts <folder>`): the biggest of each field fits
 * with headroom. The numbers and the reasons are in server/modules/characters/README.md (ADR 044).
 */
export const CHARACTER_LIMITS = {
  name: 80,
  /** A card's `creator_notes`: card-site pages (credits, content notes, guides) reach 12k. */
  introduction: 20_000,
  scenario: 10_000,
  personality: 10_000,
  details: 30_000,
  firstMessage: 20_000,
  /** Each alternate greeting. */
  greeting: 20_000,
  greetings: 30,
  exampleDialogue: 30_000,
  /** Card sites let creators tag freely: real cards carry 13-24. */
  tags: 40,
  tagName: 30,
  /**
   * Tags one user has made (typed new) that still exist: spam cannot flood the tag list, yet a
   * few imported cards full of new tags still fit.
   */
  userMadeTags: 200,
  /** An uploaded avatar or banner, before it is re-encoded. */
  imageBytes: 5 * MiB,
  /** The card importer's own bound (CARD_LIMITS.maxLorebookEntries; a test keeps them equal). */
  lorebookEntries: 2_000,
  /**
   * The lorebook as JSON (UTF-8 bytes). A card's JSON is at most 2 MiB; ours spells every entry's
   * defaults out (up to ~110 bytes an entry), so 3 MiB holds any lorebook a card can bring.
   */
  lorebookBytes: 3 * MiB,
  /** The card fields the form does not show (system prompt, extensions, translations, ...), as JSON; as above. */
  cardExtrasBytes: 3 * MiB,
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
  /** A JSON part (lorebook, card extras) over its size in bytes. */
  'too_large',
  'not_an_image',
  /** A translation into the character's own language (ADR 039). */
  'source_language',
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
  return (
    name
      .normalize('NFKC')
      // Tabs and line breaks part words like spaces; other control characters are dropped.
      .replace(/[\t\n\v\f\r]/g, ' ')
      .replace(/[\p{Cc}\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu, '')
      .replace(/\s+/gu, ' ')
      .trim()
  )
}

/**
 * What two tag names are compared by: names that differ only in case, width or spacing
 * (`Fantasy`, `ｆａｎｔａｓｙ`, ` fantasy `) are one tag. The same in the browser and on the server.
 */
export function tagKey(name: string): string {
  return normalizeTagName(name).toLowerCase()
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

/** UTF-8 bytes of a value as JSON: what a JSON part of the form weighs. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length
}

/**
 * Checks the form's lorebook and card extras (the parts sent as JSON) against CHARACTER_LIMITS,
 * as the server will: the number of lorebook entries and each part's size.
 */
export function checkCardParts(parts: {
  lorebook: { entries: readonly unknown[] } | null
  cardExtras: unknown
}): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (parts.lorebook) {
    if (parts.lorebook.entries.length > CHARACTER_LIMITS.lorebookEntries) {
      problems.push({ path: 'lorebook', code: 'too_many', limit: CHARACTER_LIMITS.lorebookEntries })
    } else if (jsonBytes(parts.lorebook) > CHARACTER_LIMITS.lorebookBytes) {
      problems.push({ path: 'lorebook', code: 'too_large', limit: CHARACTER_LIMITS.lorebookBytes })
    }
  }
  if (parts.cardExtras && jsonBytes(parts.cardExtras) > CHARACTER_LIMITS.cardExtrasBytes) {
    problems.push({ path: 'cardExtras', code: 'too_large', limit: CHARACTER_LIMITS.cardExtrasBytes })
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
/** How an operator closed a report (ADR 055); its reporter sees it. */
export const REPORT_OUTCOMES = ['dismissed', 'hidden', 'marked_adult', 'warned', 'suspended'] as const
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number]

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
  'nul_removed',
  'unknown_field',
  'wrong_type',
  'asset_dropped',
  'avatar_missing',
  'avatar_too_large',
  'png_asset_chunks',
  'extensions_too_deep',
  'translation_invalid',
  'language_unknown',
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
