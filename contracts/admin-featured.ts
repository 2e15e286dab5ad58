import { z } from 'zod'

/** The console's featured characters (ADR 059). */
const note = z.string().trim().min(1).max(2000)
const roleId = z.string().trim().min(1).max(100)

/** The most characters the home page features. */
export const FEATURED_MAX = 24

export const featuredItemSchema = z.object({
  roleId: z.string(),
  name: z.string(),
  position: z.number().int(),
  /** Shown on the home page only when public; a hidden character is private. */
  visibility: z.enum(['public', 'private']),
  isAdult: z.boolean(),
})
export type FeaturedItem = z.infer<typeof featuredItemSchema>

export const featuredListSchema = z.object({ items: z.array(featuredItemSchema) })

export const featureBody = z.object({ roleId, note })
export const unfeatureBody = z.object({ roleId, note })
/** The whole list in its new order: exactly the characters featured now. */
export const featuredOrderBody = z.object({ roleIds: z.array(roleId).min(1).max(FEATURED_MAX), note })
