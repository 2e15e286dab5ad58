import { z } from 'zod'
import { roleDetailSchema, tagSchema } from './catalogue-schemas.ts'
import { CHARACTER_LIMITS, FIELD_PROBLEM_CODES, REPORT_REASONS, VISIBILITIES } from './characters.ts'
import { LOCALES } from './locales.ts'

// zod schemas of the character creation, import and export API (issue 8), for the server and the
// OpenAPI document. Kept apart from `characters.ts` so the form does not ship zod.

const jsonObject = z.record(z.string(), z.unknown())

/** One lorebook entry: the Character Card's `character_book.entries[]`, with our field names. */
const lorebookEntrySchema = z.object({
  keys: z.array(z.string()),
  secondaryKeys: z.array(z.string()),
  content: z.string(),
  enabled: z.boolean(),
  insertionOrder: z.number(),
  useRegex: z.boolean(),
  caseSensitive: z.boolean().optional(),
  constant: z.boolean().optional(),
  selective: z.boolean().optional(),
  name: z.string().optional(),
  comment: z.string().optional(),
  priority: z.number().optional(),
  id: z.union([z.number(), z.string()]).optional(),
  position: z.enum(['before_char', 'after_char']).optional(),
  extensions: jsonObject,
  /** The card's entry fields outside the spec (`probability`, `selectiveLogic`, ...), exported as they came. */
  otherFields: jsonObject.optional(),
})

/**
 * A character's lorebook (`character_book`), kept whole for the chat: entries whose keys appear in
 * the conversation add their content to the prompt.
 */
export const lorebookSchema = z.object({
  name: z.string().optional(),
  description: z.string().optional(),
  scanDepth: z.number().optional(),
  tokenBudget: z.number().optional(),
  recursiveScanning: z.boolean().optional(),
  extensions: jsonObject,
  entries: z.array(lorebookEntrySchema).max(CHARACTER_LIMITS.lorebookEntries),
  /** The card's lorebook fields outside the spec (a card site's metadata), exported as they came. */
  otherFields: jsonObject.optional(),
})

/** A translation a card brought (ADR 041): its texts as a saved translation has them. */
const cardTranslationSchema = z.object({
  locale: z.enum(LOCALES),
  texts: z.object({
    name: z.string().nullable(),
    introduction: z.string(),
    scenario: z.string(),
    firstMessage: z.string(),
    alternateGreetings: z.array(z.string()),
  }),
})

/**
 * The card fields the form does not show, kept so an imported card exports as it came in (system
 * prompt, post-history instructions, creator, version, unknown extensions, V3 extras).
 */
export const cardExtrasSchema = z.object({
  systemPrompt: z.string().default(''),
  postHistoryInstructions: z.string().default(''),
  /**
   * The card's `creator`, empty included; absent for a character made here (its export names the
   * author's username then).
   */
  creator: z.string().optional(),
  characterVersion: z.string().default(''),
  extensions: jsonObject.default({}),
  groupOnlyGreetings: z.array(z.string()).default([]),
  nickname: z.string().optional(),
  source: z.array(z.string()).optional(),
  creatorNotesMultilingual: z.record(z.string(), z.string()).optional(),
  assets: z.array(z.object({ type: z.string(), uri: z.string(), name: z.string(), ext: z.string() })).default([]),
  creationDate: z.number().optional(),
  modificationDate: z.number().optional(),
  /**
   * The card's fields outside the spec, of the card object and of its `data`, exported as they
   * came (ADR 046). Named here rather than let through, so the schema still strips what it does
   * not know.
   */
  otherCardFields: jsonObject.optional(),
  otherDataFields: jsonObject.optional(),
  /**
   * Import only (ADR 041): the language of the card's texts and the translations it brought,
   * carried from the import's draft to the save, which makes them the character's source language
   * (unless the form names one) and its creator's translations. Never stored in `card_extras`.
   */
  sourceLanguage: z.enum(LOCALES).optional(),
  translations: z.array(cardTranslationSchema).max(LOCALES.length).optional(),
})

/** A tag of the form: an existing one (with its slug) or a new name (slug null). */
const draftTagSchema = z.object({ slug: z.string().nullable(), name: z.string() })

/** What an imported card fills the form with. */
export const characterDraftSchema = z.object({
  name: z.string(),
  introduction: z.string(),
  scenario: z.string(),
  personality: z.string(),
  details: z.string(),
  firstMessage: z.string(),
  alternateGreetings: z.array(z.string()),
  exampleDialogue: z.string(),
  tags: z.array(draftTagSchema),
  isAdult: z.boolean(),
  lorebook: lorebookSchema.nullable(),
  cardExtras: cardExtrasSchema,
})

export const importResultSchema = z.object({
  draft: characterDraftSchema,
  /** The card's picture as a WebP data URL (already re-encoded), for the form to upload on save. */
  avatar: z.string().nullable(),
  /**
   * The card's other files (ADR 047), held on the server for the importing user for 30 minutes:
   * the save sends `token` back as its `cardFiles` part to keep them. Null when it carried none.
   */
  cardFiles: z.object({ token: z.string(), count: z.number().int() }).nullable(),
  version: z.enum(['v1', 'v2', 'v3']),
  format: z.enum(['png', 'charx', 'json']),
  report: z.object({
    /** `reason` or `reason:path` entries (server/modules/cards/README.md), worded by the client. */
    repaired: z.array(z.string()),
    ignored: z.array(z.string()),
    /**
     * What the save would refuse as the card filled the form (a text over its limit, too many
     * tags, a tag that is a link...): kept as the card had it, not cut, and marked in the form
     * with the same words as a refused save (`path` is the form's field, as in `details` of 400).
     */
    problems: z.array(z.object({ path: z.string(), code: z.enum(FIELD_PROBLEM_CODES), limit: z.number().optional() })),
  }),
})

/** One's own character as the edit form loads it. */
export const editableRoleSchema = z.object({
  roleId: z.string(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  bannerUrl: z.string().nullable(),
  tags: z.array(tagSchema),
  introduction: z.string(),
  scenario: z.string(),
  personality: z.string(),
  details: z.string(),
  firstMessage: z.string(),
  alternateGreetings: z.array(z.string()),
  exampleDialogue: z.string(),
  visibility: z.enum(VISIBILITIES),
  isAdult: z.boolean(),
  /** The language the texts above are written in (ADR 039); translations are edited apart. */
  sourceLanguage: z.enum(LOCALES),
  lorebook: lorebookSchema.nullable(),
  cardExtras: cardExtrasSchema,
  /** How many files the character keeps from its card (ADR 047); only the exports carry them. */
  cardFileCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

/** A row of "My characters". */
export const myRoleSchema = z.object({
  roleId: z.string(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  tags: z.array(tagSchema),
  visibility: z.enum(VISIBILITIES),
  /** Present (true) when an operator hid it (ADR 055): private for everyone else until they restore it. */
  hiddenByOperator: z.literal(true).optional(),
  isAdult: z.boolean(),
  chatCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

/** One's own character: the page's view (also of a private one) and the form's. */
export const ownRoleSchema = z.object({ role: roleDetailSchema, form: editableRoleSchema })

export const roleIdParams = z.object({ id: z.string().trim().min(1).max(40) })

export const reportBody = z
  .object({
    reason: z.enum(REPORT_REASONS),
    text: z.string().trim().max(CHARACTER_LIMITS.reportText).default(''),
  })
  .strict()
