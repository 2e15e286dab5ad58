import type { z } from 'zod'
import type {
  roleDetailSchema,
  roleListQuery,
  roleListSchema,
  roleSummarySchema,
  tagSchema,
} from './catalogue-schemas.ts'

export const ROLE_SORTS = ['popularity', 'newest', 'rating'] as const
export type RoleSort = (typeof ROLE_SORTS)[number]

export const ROLE_PAGE_SIZE_DEFAULT = 24
export const ROLE_PAGE_SIZE_MAX = 100
export const ROLE_SEARCH_MAX_LENGTH = 100
export const ROLE_TAG_FILTER_MAX = 10

export type RoleListQuery = z.output<typeof roleListQuery>
export type Tag = z.infer<typeof tagSchema>
export type RoleSummary = z.infer<typeof roleSummarySchema>
export type RoleList = z.infer<typeof roleListSchema>
export type RoleDetail = z.infer<typeof roleDetailSchema>

/** Who is looking: decides private and adult visibility. */
export type Viewer = { userId: string | null; adultConfirmed: boolean }

/**
 * `original`: the character's own texts rather than the locale's translation (`?original=1`).
 * `operator`: the moderation console reads it whatever its visibility (ADR 058), and asks for no
 * translation.
 */
export type RoleReadOptions = { original?: boolean; operator?: boolean }

/** Cookie a visitor's age confirmation is kept in (users also keep it in their account). */
export const ADULT_COOKIE = 'adult_ok'
export const ADULT_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

/** The catalogue as the pages' loaders use it (implemented by server/modules/catalogue). */
export type CatalogueReader = {
  listRoles(query: RoleListQuery, viewer: Viewer, locale: string): Promise<RoleList>
  getRole(publicId: string, viewer: Viewer, locale: string, options?: RoleReadOptions): Promise<RoleDetail | null>
  listTags(locale: string): Promise<Tag[]>
  /** The characters an operator features on the home page (ADR 059), in their order. */
  listFeatured(viewer: Viewer, locale: string): Promise<RoleSummary[]>
}
