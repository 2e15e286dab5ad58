import { eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { translationUsage } from '#db/schema/translation-usage.ts'

/**
 * The only file touching `translation_usage`: the source characters machine translation sent to
 * the model per UTC day (`day` as `YYYY-MM-DD`), shared by every instance (ADR 040).
 */
export function createTranslationUsageRepo(db: Db) {
  return {
    /**
     * Adds `characters` to `day` when the day's use is still under `limit` (one statement, so two
     * instances cannot both take the last of it). The one reservation that crosses the limit is
     * allowed: a character longer than the whole budget is still translated one day. Returns the
     * day's use after it, or null when refused.
     */
    async reserve(day: string, characters: number, limit: number): Promise<number | null> {
      const [row] = await db
        .insert(translationUsage)
        .values({ day, characters })
        .onConflictDoUpdate({
          target: translationUsage.day,
          set: { characters: sql`${translationUsage.characters} + ${characters}` },
          setWhere: sql`${translationUsage.characters} < ${limit}`,
        })
        .returning({ characters: translationUsage.characters })
      return row ? Number(row.characters) : null
    },

    /** Gives back a reservation whose translation did not happen (never below zero). */
    async release(day: string, characters: number): Promise<void> {
      await db
        .update(translationUsage)
        .set({ characters: sql`greatest(0, ${translationUsage.characters} - ${characters})` })
        .where(eq(translationUsage.day, day))
    },
  }
}

export type TranslationUsageRepo = ReturnType<typeof createTranslationUsageRepo>
