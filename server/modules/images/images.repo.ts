import { and, eq, exists, inArray, notExists, or } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { images } from '#db/schema/images.ts'
import { roles } from '#db/schema/roles.ts'

export type StoredImage = { id: string; contentType: string; bytes: Buffer; sha256: string; gated: boolean }
/** `onPublicRole`: a public character shows it (avatar, blurred avatar or banner). */
export type FoundImage = StoredImage & { onPublicRole: boolean }

/** A role that uses the image in the outer query (avatar, blurred avatar or banner). */
const usesImage = or(
  eq(roles.avatarImageId, images.id),
  eq(roles.avatarBlurredImageId, images.id),
  eq(roles.bannerImageId, images.id),
)

export function createImagesRepo(db: Db) {
  return {
    async insert(image: Omit<StoredImage, 'id'> & { width: number; height: number }): Promise<string> {
      const [row] = await db.insert(images).values(image).returning({ id: images.id })
      if (!row) throw new Error('image was not stored')
      return row.id
    },
    async find(id: string): Promise<FoundImage | null> {
      const publicUse = db
        .select({ id: roles.id })
        .from(roles)
        .where(and(usesImage, eq(roles.visibility, 'public')))
      const [row] = await db
        .select({
          id: images.id,
          contentType: images.contentType,
          bytes: images.bytes,
          sha256: images.sha256,
          gated: images.gated,
          onPublicRole: exists(publicUse).mapWith(Boolean),
        })
        .from(images)
        .where(eq(images.id, id))
        .limit(1)
      return row ?? null
    },
    /** Images are only referenced by roles (avatar, blurred avatar, banner); others are left alone. */
    async removeUnused(ids: readonly (string | null | undefined)[]): Promise<number> {
      const list = ids.filter((id): id is string => Boolean(id))
      if (list.length === 0) return 0
      const used = db.select({ id: roles.id }).from(roles).where(usesImage)
      const removed = await db
        .delete(images)
        .where(and(inArray(images.id, list), notExists(used)))
        .returning({ id: images.id })
      return removed.length
    },
  }
}

export type ImagesRepo = ReturnType<typeof createImagesRepo>
