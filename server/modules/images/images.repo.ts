import { eq } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { images } from '#db/schema/images.ts'

export type StoredImage = { id: string; contentType: string; bytes: Buffer; sha256: string; gated: boolean }

export function createImagesRepo(db: Db) {
  return {
    async insert(image: Omit<StoredImage, 'id'> & { width: number; height: number }): Promise<string> {
      const [row] = await db.insert(images).values(image).returning({ id: images.id })
      if (!row) throw new Error('image was not stored')
      return row.id
    },
    async find(id: string): Promise<StoredImage | null> {
      const [row] = await db
        .select({
          id: images.id,
          contentType: images.contentType,
          bytes: images.bytes,
          sha256: images.sha256,
          gated: images.gated,
        })
        .from(images)
        .where(eq(images.id, id))
        .limit(1)
      return row ?? null
    },
  }
}

export type ImagesRepo = ReturnType<typeof createImagesRepo>
