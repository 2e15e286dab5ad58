import type { z } from 'zod'
import type {
  attachedLorebooksSchema,
  lorebookDetailSchema,
  lorebookImportResultSchema,
  lorebookSummarySchema,
  myLorebooksSchema,
  storedLorebookSchema,
} from './lorebooks-schemas.ts'

// A user's own lorebooks, kept apart from characters and attached to them (issue 21 item 7, ADR 043):
// SillyTavern World Info files and V3 lorebook files come in, and go out again in both formats.

const MiB = 1024 * 1024

export const LOREBOOK_LIMITS = {
  /** The file as uploaded (a multipart part or a JSON body): the card importer's JSON bound. */
  fileBytes: 2 * MiB,
  /** Entries in one book: the card importer's bound (CARD_LIMITS.maxLorebookEntries). */
  entries: 2_000,
  /** Characters of one text (an entry's content, a key, a comment): the card importer's bound. */
  fieldChars: 50_000,
  /** Keys of one entry: the card importer's list bound. */
  keys: 1_000,
  /** The name a user sees in their list. */
  name: 100,
  /** Books one user may keep. */
  perUser: 200,
  /** Books attached to one character. */
  perCharacter: 20,
  /** Page size of "My lorebooks". */
  pageSize: 100,
} as const

/** What a lorebook file was read as. */
export const LOREBOOK_FORMATS = ['world_info', 'lorebook_v3', 'character_book'] as const
export type LorebookFormat = (typeof LOREBOOK_FORMATS)[number]

/** The two formats a lorebook downloads as: `{ spec: 'lorebook_v3', data }`, or SillyTavern World Info. */
export const LOREBOOK_EXPORT_FORMATS = ['v3', 'world_info'] as const
export type LorebookExportFormat = (typeof LOREBOOK_EXPORT_FORMATS)[number]

/** `details.reason` of a refused lorebook import (INVALID_LOREBOOK, or 413 for `too_large`). */
export const LOREBOOK_IMPORT_ERRORS = [
  'empty_file',
  'bad_json',
  /** JSON, but neither World Info, a V3 lorebook nor a `character_book`. */
  'not_a_lorebook',
  /** A character card: it is imported as a character (its own lorebook comes with it). */
  'character_card',
  /** Over LOREBOOK_LIMITS (`details.field` and `details.limit` say which). */
  'too_large',
  /** The user already keeps LOREBOOK_LIMITS.perUser books (`details.limit`). */
  'limit_reached',
] as const
export type LorebookImportError = (typeof LOREBOOK_IMPORT_ERRORS)[number]

export type LorebookSummary = z.infer<typeof lorebookSummarySchema>
export type LorebookDetail = z.infer<typeof lorebookDetailSchema>
export type MyLorebooks = z.infer<typeof myLorebooksSchema>
export type LorebookImportResult = z.infer<typeof lorebookImportResultSchema>
export type AttachedLorebooks = z.infer<typeof attachedLorebooksSchema>

/**
 * A stored lorebook: the card lorebook (`Lorebook` of characters.ts) plus, on the book and on each
 * entry, the fields outside the card spec that its file brought, under the file's own names.
 */
export type StoredLorebook = z.infer<typeof storedLorebookSchema>
