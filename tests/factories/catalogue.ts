import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import type { Db } from '#db/client.ts'
import { createCatalogueRepo, type NewRole } from '#server/modules/catalogue/catalogue.repo.ts'
import { createImagesRepo } from '#server/modules/images/images.repo.ts'
import { AVATAR, createImagesService } from '#server/modules/images/images.service.ts'

export async function createTags(db: Db, list: { slug: string; names: Record<string, string> }[]) {
  await createCatalogueRepo(db).upsertTags(list)
}

/** A public, non-adult role unless told otherwise; returns its public id. */
export async function createRole(db: Db, overrides: Partial<NewRole> & { name: string }): Promise<string> {
  const publicId = overrides.publicId ?? `r${randomBytes(5).toString('hex')}`
  await createCatalogueRepo(db).insertRoles([
    { tagSlugs: [], introduction: `About ${overrides.name}.`, ...overrides, publicId },
  ])
  return publicId
}

export async function ratingsFor(db: Db, publicId: string, scores: { userId: string; score: number }[]) {
  const repo = createCatalogueRepo(db)
  for (const { userId, score } of scores) await repo.rateRole(publicId, userId, score)
}

/** A real PNG, stored through the images service (gated ones get their blurred twin). */
export async function createAvatarImage(db: Db, options: { gated?: boolean; color?: string } = {}) {
  const png = await sharp({
    create: { width: 64, height: 64, channels: 3, background: options.color ?? '#7c3aed' },
  })
    .png()
    .toBuffer()
  return createImagesService(createImagesRepo(db)).store(png, AVATAR, { gated: options.gated ?? false })
}
