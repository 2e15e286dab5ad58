import { z } from 'zod'
import { lorebookSchema } from './characters-schemas.ts'
import { LOREBOOK_FORMATS, LOREBOOK_LIMITS } from './lorebooks.ts'

// zod schemas of the lorebooks API (ADR 043), for the server and the OpenAPI document.

/** A lorebook in a list: what the user sees of it without its entries. */
export const lorebookSummarySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  entryCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

/**
 * A stored book: the character card's lorebook shape (our field names), up to the importer's
 * 2,000 entries, with the fields outside the card spec that a file brought kept as they came
 * (loose objects: nothing is stripped on the way out).
 */
const storedEntrySchema = z.looseObject(lorebookSchema.shape.entries.element.shape)
export const storedLorebookSchema = z.looseObject({
  ...lorebookSchema.shape,
  entries: z.array(storedEntrySchema).max(LOREBOOK_LIMITS.entries),
})

export const lorebookDetailSchema = lorebookSummarySchema.extend({ book: storedLorebookSchema })

export const myLorebooksSchema = z.object({
  items: z.array(lorebookSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

export const lorebookImportResultSchema = z.object({
  lorebook: lorebookSummarySchema,
  /** What the file was read as. */
  format: z.enum(LOREBOOK_FORMATS),
})

/** The books attached to a character, in the order the chat reads them. */
export const attachedLorebooksSchema = z.object({ lorebooks: z.array(lorebookSummarySchema) })

export const lorebookIdParams = z.object({ id: z.uuid() })

export const myLorebooksQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(LOREBOOK_LIMITS.pageSize).default(50),
})

export const renameLorebookBody = z.object({ name: z.string().trim().min(1).max(LOREBOOK_LIMITS.name) }).strict()

export const attachLorebooksBody = z
  .object({ lorebookIds: z.array(z.uuid()).max(LOREBOOK_LIMITS.perCharacter) })
  .strict()
