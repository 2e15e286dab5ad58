import { z } from 'zod'
import { CHARACTER_LIMITS } from './characters.ts'
import { LOCALES } from './locales.ts'

/** The console's tag moderation (ADR 059). */
export const tagStateSchema = z.enum(['visible', 'hidden', 'pending'])
export type TagState = z.infer<typeof tagStateSchema>

const note = z.string().trim().min(1).max(2000)
/** A tag's slug as URLs carry it (what the listing's tag filter accepts). */
const slug = z.string().regex(/^[a-z0-9-]{1,40}$/)

export const tagsQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  state: tagStateSchema.optional(),
  /** Part of the slug or of a name in any language. */
  q: z.string().trim().max(60).optional(),
})

export const adminTagSchema = z.object({
  slug: z.string(),
  names: z.record(z.string(), z.string()),
  userMade: z.boolean(),
  creator: z.object({ id: z.string(), username: z.string() }).nullable(),
  /** Characters carrying it, public or not. */
  characterCount: z.number().int(),
  state: tagStateSchema,
})
export type AdminTag = z.infer<typeof adminTagSchema>

export const tagsPageSchema = z.object({
  items: z.array(adminTagSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  hasMore: z.boolean(),
})

export const tagSlugParams = z.object({ slug })

/** A name per locale; at least one. The slug stays (ADR 059). */
export const renameBody = z.object({
  names: z
    .partialRecord(z.enum(LOCALES), z.string().trim().min(1).max(CHARACTER_LIMITS.tagName))
    .refine((names) => Object.keys(names).length > 0, 'at least one name'),
  note,
})

export const mergeBody = z.object({ into: slug, note })
export const noteBody = z.object({ note })

export const tagPolicySchema = z.object({
  /** User-made tags start pending, shown to nobody until a moderator approves them. */
  userTagsStartHidden: z.boolean(),
})
export const tagPolicyBody = tagPolicySchema.extend({ note })
