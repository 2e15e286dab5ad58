import type { Locale } from '#contracts/locales.ts'

/**
 * The normalized shape of a character read from (or written to) a Character Card, whatever the
 * card's version or container. Field names are ours; the card field each one maps to is noted.
 */

/** One lorebook entry (`character_book.entries[]`). Optional fields are absent when the card had none. */
export type LorebookEntry = {
  keys: string[]
  /** `secondary_keys`; an empty list when the card had none. */
  secondaryKeys: string[]
  content: string
  enabled: boolean
  insertionOrder: number
  /** `use_regex` (V3); false for V1 and V2 cards. */
  useRegex: boolean
  caseSensitive?: boolean
  constant?: boolean
  selective?: boolean
  name?: string
  comment?: string
  priority?: number
  id?: number | string
  position?: 'before_char' | 'after_char'
  extensions: Record<string, unknown>
  /**
   * The entry's fields outside the spec (`probability`, `selectiveLogic`, `useProbability`, a card
   * site's metadata), as the card had them, written back on export. Absent when there were none.
   */
  otherFields?: Record<string, unknown>
}

/** The character's own lorebook (`character_book`). */
export type CharacterBook = {
  name?: string
  description?: string
  scanDepth?: number
  tokenBudget?: number
  recursiveScanning?: boolean
  extensions: Record<string, unknown>
  entries: LorebookEntry[]
  /** The book's fields outside the spec (a card site's metadata), as the card had them. */
  otherFields?: Record<string, unknown>
}

/** A V3 asset reference, kept as written (`embeded://` ones are resolved on import; see README). */
export type CardAsset = { type: string; uri: string; name: string; ext: string }

/**
 * An asset file the card carried inside it (a CHARX entry, a PNG `chara-ext-asset_` chunk), other
 * than the main icon (the avatar): its asset entry's type, name and ext as the card had them, the
 * bytes as they were, and a content type (sniffed for pictures, else from the extension).
 */
export type CardFile = { type: string; name: string; ext: string; bytes: Buffer; contentType: string }

/**
 * A character's texts in one other language (`extensions.taleweave.translations.<locale>`, and
 * `creator_notes_multilingual.<code>` for the introduction). An empty text, a null name or a
 * missing or empty greeting means "the source's" (ADR 039).
 */
export type CardTranslation = {
  name: string | null
  introduction: string
  scenario: string
  /** `first_message` */
  firstMessage: string
  /** `alternate_greetings`, index-aligned with the source's. */
  alternateGreetings: string[]
}

/** Translations by locale, never one for the draft's own `sourceLanguage` (see card-languages.ts). */
export type CardTranslations = Partial<Record<Locale, CardTranslation>>

export type CharacterDraft = {
  name: string
  /** `description`: the character's details. */
  description: string
  personality: string
  scenario: string
  /** `first_mes` */
  firstMessage: string
  alternateGreetings: string[]
  /** `group_only_greetings` (V3) */
  groupOnlyGreetings: string[]
  /** `mes_example` */
  exampleDialogue: string
  systemPrompt: string
  postHistoryInstructions: string
  creatorNotes: string
  /**
   * `creator_notes_multilingual` (V3): ISO 639-1 code -> notes, only the codes that are none of
   * our locales (kept so the export gives them back); the others are the source's introduction or
   * a translation's (ADR 041).
   */
  creatorNotesMultilingual?: Record<string, string>
  /**
   * The language the texts are written in: `extensions.taleweave.source_language`, else the
   * language of the `creator_notes_multilingual` note equal to `creator_notes`, else `en` when
   * those notes have no `en` (the V3 spec's reading), else the importer's language.
   */
  sourceLanguage: Locale
  /** `extensions.taleweave.translations` with `creator_notes_multilingual`'s notes as introductions. */
  translations: CardTranslations
  /** `nickname` (V3) */
  nickname?: string
  /** `source` (V3): ids or URLs of where the card came from. */
  source?: string[]
  tags: string[]
  creator: string
  characterVersion: string
  /** `creation_date` / `modification_date` (V3), Unix seconds. */
  creationDate?: number
  modificationDate?: number
  /**
   * Adult-content hint: a tag such as `NSFW` or `18+`, or `extensions.nsfw === true`. The
   * `nsfw` extension is lifted out of `extensions` on import and written back on export.
   */
  nsfw: boolean
  characterBook: CharacterBook | null
  /** `extensions`, kept verbatim (minus `nsfw`, see above, and `taleweave`, read into the two fields above). */
  extensions: Record<string, unknown>
  /** The card's asset entries that point outside it (`https:`, `data:`, `ccdefault:`) or at the avatar. */
  assets: CardAsset[]
  /** The files the card carried (ADR 047), in the card's order; written back into CHARX and PNG exports. */
  files: CardFile[]
  /**
   * Fields outside the spec, as the card had them, written back on export: those of the card
   * object itself (`create_date`, `talkativeness`, a V1 card's extras) and those of its `data`.
   * Absent when there were none.
   */
  otherCardFields?: Record<string, unknown>
  otherDataFields?: Record<string, unknown>
  /**
   * The picture that came with the card: the PNG itself (only its image chunks kept) for a PNG
   * card, the main icon asset for a CHARX. Not checked to be an image: the images service sniffs
   * and re-encodes it.
   */
  avatar: Buffer | null
}

export type CardVersion = 'v1' | 'v2' | 'v3'

/**
 * What the import changed (`repaired`) or left out (`ignored`). Each entry is `reason` or
 * `reason:path`, where `reason` is one of the lists below (a route maps it to a localized message)
 * and `path` names the card field, with `[]` standing for any list index
 * (`missing_field:character_book.entries[].enabled`). Each entry appears once.
 */
export type ImportReport = { repaired: string[]; ignored: string[] }

export const REPAIR_REASONS = [
  /** An expected field was absent; the default (empty) value is used. */
  'missing_field',
  /** A field was null; the default value is used. */
  'null_field',
  /** A single string where a list belongs: tags split on commas, lorebook keys too, others kept as one item. */
  'string_as_list',
  /** A number or boolean where a string belongs, turned into text. */
  'number_as_string',
  /** Numeric text where a number belongs (`"100"`), or text `true`/`false` where a boolean belongs. */
  'string_as_number',
  'string_as_boolean',
  /** An object keyed by id where a list belongs (SillyTavern world-info entries). */
  'object_as_list',
  /** An old field name (`char_persona`, `char_greeting`, ...) or a top-level V1 copy used for a missing V2/V3 field. */
  'legacy_field',
  /** No name in the card: the file name (without extension) is used. */
  'name_from_filename',
  /** A `data` object without `spec`: read as V2. */
  'missing_spec',
  /** `spec_version` newer than 3.0: read as V3, newer fields may be missed. */
  'newer_spec_version',
  /** A PNG text chunk held plain JSON instead of base64. */
  'json_not_base64',
  /** The `ccv3` chunk was unreadable; the `chara` (V2) chunk was used. */
  'ccv3_unreadable',
  /** The CHARX main icon became the avatar; its asset entry now says `ccdefault:`. */
  'icon_from_charx',
  /** NUL characters (U+0000), which no text may hold, were removed (`nul_removed:data.description`). */
  'nul_removed',
] as const

export const IGNORED_REASONS = [
  /**
   * A field the card format does not define, left out because the card's unknown fields are over
   * MAX_OTHER_FIELDS_BYTES together (`unknown_field:data.mood`). Within it they are kept, unreported.
   */
  'unknown_field',
  /** A value of a type that cannot be used (an object where text belongs); the default is used. */
  'wrong_type',
  /**
   * An embedded asset whose file could not be brought along (`asset_dropped:emotion/happy`): its
   * file is missing, its path unsafe (`..`), or it is over the asset bounds of CARD_LIMITS; or, in
   * a JSON card, any embedded asset (its file is nowhere).
   */
  'asset_dropped',
  /** The main icon file named by the CHARX was absent, or the picture (PNG or CHARX icon) is over maxAvatarBytes. */
  'avatar_missing',
  'avatar_too_large',
  /** PNG `chara-ext-asset_:` chunks that no `__asset:` URI of the card names. */
  'png_asset_chunks',
  /**
   * A value of `extensions` (or of a field outside the spec) nested deeper than maxExtensionsDepth:
   * only that branch is left out (`extensions_too_deep:extensions.a.b`).
   */
  'extensions_too_deep',
  /**
   * A translation that cannot be used: malformed, over the form's limits, empty, or into the
   * character's own language (`translation_invalid:extensions.taleweave.translations.ja`).
   */
  'translation_invalid',
  /** A language in `extensions.taleweave` that is none of our locales. */
  'language_unknown',
] as const

export type RepairReason = (typeof REPAIR_REASONS)[number]
export type IgnoredReason = (typeof IGNORED_REASONS)[number]

export const CARD_ERROR_CODES = [
  'empty_file',
  /** Not a PNG, CHARX or JSON card, or a PNG/CHARX/JSON without a character in it. */
  'not_a_card',
  /** A PNG that ends early or whose chunk runs past the end of the file. */
  'truncated_png',
  /** A PNG with a bad chunk CRC or broken structure. */
  'corrupt_png',
  'bad_base64',
  'bad_json',
  /** The file, the card JSON, a text field or a list is over its limit (`details` says which). */
  'too_large',
  /** A CHARX over the entry, size or compression-ratio limits, or an entry inflating past its declared size. */
  'zip_too_large',
  /** A zip whose structure, sizes or CRCs do not add up. */
  'corrupt_zip',
  /** A format we recognise but do not read: JPEG/WebP/GIF cards, encrypted or ZIP64 zips, a spec other than chara_card_v1-3. */
  'unsupported',
] as const
export type CardErrorCode = (typeof CARD_ERROR_CODES)[number]

/** Why a card could not be read. `code` is stable; `message` is English for logs. */
export class CardError extends Error {
  readonly code: CardErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(code: CardErrorCode, message: string, details?: Record<string, unknown>) {
    super(message)
    this.name = 'CardError'
    this.code = code
    this.details = details
  }
}

const MiB = 1024 * 1024

/** Limits, in one place so the route and README can quote them. */
export const CARD_LIMITS = {
  /** The uploaded file, whatever its format. */
  maxFileBytes: 20 * MiB,
  /** The card JSON (UTF-8 bytes), after base64 decoding or unzipping. */
  maxJsonBytes: 2 * MiB,
  /** One PNG text chunk we read (room for base64 of maxJsonBytes), also the inflate cap of zTXt/iTXt. */
  maxTextChunkBytes: 3 * MiB,
  /** Characters (UTF-16 units) in any one text field, lorebook entry content included. */
  maxFieldChars: 50_000,
  /** Items in any one list (tags, greetings, lorebook keys, assets). */
  maxListItems: 1_000,
  maxLorebookEntries: 2_000,
  /** Nesting depth of `extensions` values (and of fields outside the spec). */
  maxExtensionsDepth: 64,
  /**
   * Fields outside the spec kept, as JSON (UTF-8 bytes): those of the card and its `data`
   * together, and those of the lorebook and its entries together. They are stored with the
   * character (card extras 512 KiB, lorebook 2 MiB): beyond this they are left out, reported.
   */
  maxOtherFieldsBytes: 128 * 1024,
  /** CHARX: entries in the zip, total declared uncompressed size, compression ratio of big entries. */
  maxZipEntries: 1_000,
  maxZipUncompressedBytes: 20 * MiB,
  maxCompressionRatio: 100,
  /** Entries smaller than this are not held to maxCompressionRatio (small JSON compresses well). */
  ratioCheckFromBytes: 64 * 1024,
  /** The avatar taken from a PNG or CHARX card (same as the images service's upload limit). */
  maxAvatarBytes: 8 * MiB,
  /**
   * The card's other embedded files (ADR 047): how many, each one's and all of theirs bytes. Past
   * them a file is left out, reported `asset_dropped`.
   */
  maxAssets: 100,
  maxAssetBytes: 8 * MiB,
  maxAssetsTotalBytes: 16 * MiB,
  /** Files whose total is over this are left out of a PNG export (a CHARX carries them). */
  maxPngAssetsBytes: 4 * MiB,
} as const
