import { z } from 'zod'
import { roleDetailSchema, tagSchema } from './catalogue-schemas.ts'
import { CHARACTER_LIMITS, REPORT_REASONS, VISIBILITIES } from './characters.ts'

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
})

/**
 * The card fields the form does not show, kept so an imported card exports as it came in (system
 * prompt, post-history instructions, creator, version, unknown extensions, V3 extras).
 */
export const cardExtrasSchema = z.object({
  systemPrompt: z.string().default(''),
  postHistoryInstructions: z.string().default(''),
  creator: z.string().default(''),
  characterVersion: z.string().default(''),
  extensions: jsonObject.default({}),
  groupOnlyGreetings: z.array(z.string()).default([]),
  nickname: z.string().optional(),
  source: z.array(z.string()).optional(),
  creatorNotesMultilingual: z.record(z.string(), z.string()).optional(),
  assets: z.array(z.object({ type: z.string(), uri: z.string(), name: z.string(), ext: z.string() })).default([]),
  creationDate: z.number().optional(),
  modificationDate: z.number().optional(),
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
  version: z.enum(['v1', 'v2', 'v3']),
  format: z.enum(['png', 'charx', 'json']),
  /** `reason` or `reason:path` entries (server/modules/cards/README.md), worded by the client. */
  report: z.object({ repaired: z.array(z.string()), ignored: z.array(z.string()) }),
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
  lorebook: lorebookSchema.nullable(),
  cardExtras: cardExtrasSchema,
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
