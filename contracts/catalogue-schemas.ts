import { z } from 'zod'
import {
  ROLE_PAGE_SIZE_DEFAULT,
  ROLE_PAGE_SIZE_MAX,
  ROLE_SEARCH_MAX_LENGTH,
  ROLE_SORTS,
  ROLE_TAG_FILTER_MAX,
} from './catalogue.ts'
import { LOCALES } from './locales.ts'
import { TRANSLATION_ORIGINS } from './role-texts.ts'

// zod schemas of the catalogue API, for the server, the OpenAPI document and loaders. Kept apart
// from `catalogue.ts` so pages that only need its constants and types do not ship zod.

/** Tags arrive as `tags=a&tags=b` or `tags=a,b`; both mean "roles carrying all of these". */
const tagList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) =>
    [
      ...new Set(
        (Array.isArray(value) ? value : value ? [value] : [])
          .flatMap((v) => v.split(','))
          .map((v) => v.trim())
          .filter(Boolean),
      ),
    ].sort(),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9-]{1,40}$/, 'unknown tag')).max(ROLE_TAG_FILTER_MAX))

export const roleListQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(ROLE_PAGE_SIZE_MAX).default(ROLE_PAGE_SIZE_DEFAULT),
  sort: z.enum(ROLE_SORTS).default('popularity'),
  tags: tagList,
  q: z
    .string()
    .trim()
    .max(ROLE_SEARCH_MAX_LENGTH)
    .optional()
    .transform((v) => (v ? v : undefined)),
  locale: z.string().max(10).optional(),
})

export const tagSchema = z.object({ slug: z.string(), name: z.string() })

const ratingSchema = z.object({ average: z.number(), count: z.number().int() })

export const roleSummarySchema = z.object({
  roleId: z.string(),
  /** In the requested locale when the character has a translation there, else its own (ADR 039). */
  name: z.string(),
  avatarUrl: z.string().nullable(),
  tags: z.array(tagSchema),
  /** The start of the introduction; empty for adult roles the viewer has not unlocked. */
  summary: z.string(),
  chatCount: z.number().int(),
  popularity: z.number().int(),
  rating: ratingSchema,
  createdAt: z.string(),
  isAdult: z.boolean(),
  /** True when the viewer has not confirmed their age: the card is blurred and the text withheld. */
  gated: z.boolean(),
  /** The language the name and summary are written in: the requested locale's, or the source's. */
  language: z.enum(LOCALES),
})

export const roleListSchema = z.object({
  items: z.array(roleSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

export const roleDetailSchema = roleSummarySchema.extend({
  bannerUrl: z.string().nullable(),
  introduction: z.string(),
  scenario: z.string(),
  /** "Details" on the page: personality and description. */
  personality: z.string(),
  description: z.string(),
  firstMessage: z.string(),
  alternateGreetings: z.array(z.string()),
  exampleDialogue: z.string(),
  visibility: z.enum(['public', 'private']),
  /**
   * Present (true) only for its creator, when an operator hid it (ADR 055): it is private for
   * everyone else, and making it public again is the operator's decision.
   */
  hiddenByOperator: z.literal(true).optional(),
  creator: z.object({ username: z.string() }).nullable(),
  updatedAt: z.string(),
  /** The language the character's own texts are written in. */
  sourceLanguage: z.enum(LOCALES),
  /**
   * The character's translation into the requested locale, when it has one (shown, or not when
   * the original was asked for: then `language` is `sourceLanguage`). Null: the texts are its own.
   */
  translation: z.object({ origin: z.enum(TRANSLATION_ORIGINS), stale: z.boolean() }).nullable(),
  /**
   * The locales the character has its own text in (its source language first, then those with a
   * translation that is not stale): its page's hreflang alternates, as in the sitemaps.
   */
  languages: z.array(z.enum(LOCALES)),
})

export const roleQuery = z.object({
  roleId: z.string().trim().min(1).max(40),
  locale: z.string().max(10).optional(),
  /** `1`: the character's own texts, not the locale's translation. */
  original: z.enum(['0', '1']).optional(),
})
