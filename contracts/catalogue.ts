import { z } from 'zod'

export const ROLE_SORTS = ['popularity', 'newest', 'rating'] as const
export type RoleSort = (typeof ROLE_SORTS)[number]

export const ROLE_PAGE_SIZE_DEFAULT = 24
export const ROLE_PAGE_SIZE_MAX = 100
export const ROLE_SEARCH_MAX_LENGTH = 100
export const ROLE_TAG_FILTER_MAX = 10

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
export type RoleListQuery = z.output<typeof roleListQuery>

export const tagSchema = z.object({ slug: z.string(), name: z.string() })
export type Tag = z.infer<typeof tagSchema>

const ratingSchema = z.object({ average: z.number(), count: z.number().int() })

export const roleSummarySchema = z.object({
  roleId: z.string(),
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
})
export type RoleSummary = z.infer<typeof roleSummarySchema>

export const roleListSchema = z.object({
  items: z.array(roleSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})
export type RoleList = z.infer<typeof roleListSchema>

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
  creator: z.object({ username: z.string() }).nullable(),
  updatedAt: z.string(),
})
export type RoleDetail = z.infer<typeof roleDetailSchema>

export const roleQuery = z.object({
  roleId: z.string().trim().min(1).max(40),
  locale: z.string().max(10).optional(),
})

/** Who is looking: decides private and adult visibility. */
export type Viewer = { userId: string | null; adultConfirmed: boolean }

/** Cookie a visitor's age confirmation is kept in (users also keep it in their account). */
export const ADULT_COOKIE = 'adult_ok'
export const ADULT_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

/** The catalogue as the pages' loaders use it (implemented by server/modules/catalogue). */
export type CatalogueReader = {
  listRoles(query: RoleListQuery, viewer: Viewer, locale: string): Promise<RoleList>
  getRole(publicId: string, viewer: Viewer, locale: string): Promise<RoleDetail | null>
  listTags(locale: string): Promise<Tag[]>
}
