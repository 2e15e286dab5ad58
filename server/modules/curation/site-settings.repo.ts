import { eq } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { siteSettings } from '#db/schema/curation.ts'

/** Owns `site_settings` (ADR 059): operator settings kept in the database, one row per key. */
export function createSiteSettingsRepo(db: Db) {
  return {
    async get(key: string): Promise<unknown> {
      const [row] = await db.select({ value: siteSettings.value }).from(siteSettings).where(eq(siteSettings.key, key))
      return row?.value
    },

    async set(tx: Tx, key: string, value: unknown, actorId: string | null) {
      await tx
        .insert(siteSettings)
        .values({ key, value, updatedBy: actorId })
        .onConflictDoUpdate({ target: siteSettings.key, set: { value, updatedBy: actorId, updatedAt: new Date() } })
    },
  }
}

export type SiteSettingsRepo = ReturnType<typeof createSiteSettingsRepo>
