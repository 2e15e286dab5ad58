import type { Db } from '#db/client.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { createCatalogueRepo } from '#server/modules/catalogue/catalogue.repo.ts'
import { createCatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import { createImagesRepo } from '#server/modules/images/images.repo.ts'
import { createImagesService } from '#server/modules/images/images.service.ts'

/** Every module's service, built once per app. Routes and page loaders both use these. */
export function createServices(db: Db, kv: KeyValueStore) {
  const images = createImagesService(createImagesRepo(db))
  const catalogue = createCatalogueService(createCatalogueRepo(db), kv)
  return { images, catalogue }
}

export type Services = ReturnType<typeof createServices>
