import { and, eq, exists, inArray, notExists, or } from 'drizzle-orm'
import type { ImageVariant } from '#contracts/images.ts'
import type { Db } from '#db/client.ts'
import { images, imageVariants } from '#db/schema/images.ts'
import { personas } from '#db/schema/personas.ts'
import { roles } from '#db/schema/roles.ts'

export type StoredImage = { id: string; contentType: string; bytes: Buffer; sha256: string; gated: boolean }
export type NewImage = Omit<StoredImage, 'id'> & { width: number; height: number }
/** A variant has the bytes of its own but the image's gating. */
export type NewVariant = NewImage & { variant: ImageVariant }
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
    /** An image with its variants, in one transaction. */
    async insert(image: NewImage, variants: readonly NewVariant[]): Promise<string> {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(images).values(image).returning({ id: images.id })
        if (!row) throw new Error('image was not stored')
        if (variants.length > 0) {
          await tx
            .insert(imageVariants)
            .values(variants.map(({ gated: _gated, ...variant }) => ({ ...variant, imageId: row.id })))
        }
        return row.id
      })
    },
    /**
     * An image, or its variant when asked for one it has; an image without that variant (stored
     * before variants existed, or a blurred twin) answers with itself.
     */
    async find(id: string, variant?: ImageVariant): Promise<FoundImage | null> {
      const publicUse = db
        .select({ id: roles.id })
        .from(roles)
        .where(and(usesImage, eq(roles.visibility, 'public')))
      if (variant) {
        const [row] = await db
          .select({
            id: images.id,
            contentType: imageVariants.contentType,
            bytes: imageVariants.bytes,
            sha256: imageVariants.sha256,
            gated: images.gated,
            onPublicRole: exists(publicUse).mapWith(Boolean),
          })
          .from(imageVariants)
          .innerJoin(images, eq(images.id, imageVariants.imageId))
          .where(and(eq(imageVariants.imageId, id), eq(imageVariants.variant, variant)))
          .limit(1)
        if (row) return row
      }
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
    /** Images are referenced by roles (avatar, blurred avatar, banner) and personas (avatar); others are left alone. */
    async removeUnused(ids: readonly (string | null | undefined)[]): Promise<number> {
      const list = ids.filter((id): id is string => Boolean(id))
      if (list.length === 0) return 0
      const used = db.select({ id: roles.id }).from(roles).where(usesImage)
      // A persona's avatar (ADR 049) is used too.
      const personaUses = db.select({ id: personas.id }).from(personas).where(eq(personas.avatarImageId, images.id))
      const removed = await db
        .delete(images)
        .where(and(inArray(images.id, list), notExists(used), notExists(personaUses)))
        .returning({ id: images.id })
      return removed.length
    },
  }
}

export type ImagesRepo = ReturnType<typeof createImagesRepo>
