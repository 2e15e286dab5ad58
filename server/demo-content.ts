import type { Db } from '#db/client.ts'
import { DEMO_USER, seedDemoContent } from '#db/seed/seed.ts'
import { seedCatalogue } from '#server/modules/catalogue/demo-content.ts'
import type { Services } from '#server/services.ts'

/** Everything a fresh install shows: the demo account, tags and the hand-written characters. */
export async function seedDemo(db: Db, services: Services) {
  const accounts = await seedDemoContent(db)
  const catalogue = await seedCatalogue(db, services.images, { ownerEmail: DEMO_USER.email })
  if (catalogue.characters > 0) await services.catalogue.invalidateListings()
  return { ...accounts, ...catalogue }
}
