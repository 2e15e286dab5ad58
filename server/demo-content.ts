import type { Db } from '#db/client.ts'
import { readSeedCharacters, seedCatalogue } from '#server/modules/catalogue/demo-content.ts'
import { seedCharacterTranslations } from '#server/modules/catalogue/demo-translations.ts'
import type { Services } from '#server/services.ts'

/** The account that owns the seeded characters; it has no password and cannot log in. */
export const DEMO_OWNER_EMAIL = 'demo@taleweave.invalid'

/**
 * Everything a fresh install shows: tags and the hand-written characters, with their owner, and
 * their translations of `content/characters/i18n` (updated when that content changes).
 */
export async function seedDemo(db: Db, services: Services) {
  const catalogue = await seedCatalogue(db, services.images, { ownerEmail: DEMO_OWNER_EMAIL })
  if (catalogue.characters > 0) await services.catalogue.invalidateListings()
  const translations = await seedCharacterTranslations(services.roleTexts, readSeedCharacters())
  return { ...catalogue, translations }
}
