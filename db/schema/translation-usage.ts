import { sql } from 'drizzle-orm'
import { bigint, check, date, pgTable } from 'drizzle-orm/pg-core'

/**
 * The operator's budget of machine translation (ADR 040): source characters sent to the model for
 * translation per UTC day, by every instance together (TRANSLATE_DAILY_CHARACTERS). A job reserves
 * its characters before it asks the model and gives them back when it did not get a translation.
 * One row per day; old rows are small and kept (a record of the use).
 */
export const translationUsage = pgTable(
  'translation_usage',
  {
    day: date('day', { mode: 'string' }).primaryKey(),
    characters: bigint('characters', { mode: 'number' }).notNull().default(0),
  },
  (table) => [check('translation_usage_characters', sql`${table.characters} >= 0`)],
)
