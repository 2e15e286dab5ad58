import { type SQL, sql } from 'drizzle-orm'
import { bigint, boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core'
import { roles } from './roles.ts'
import { tsvector } from './types.ts'

/**
 * A character's texts in another locale than its source language (ADR 039): name, introduction,
 * scenario, first message and alternate greetings. An empty text (or a NULL name, or a missing or
 * empty greeting) means "not translated": the source text is shown. `origin` says who wrote it: the
 * creator or shipped content ('author') or the translation job ('machine'). `source_hash` is the
 * hash of the source texts it was made from; the repo that changes a role's source texts marks
 * translations of another hash `stale` in the same transaction. A trigger (migration 0020) bumps
 * `catalogue_version` on every change, so listing caches drop.
 */
export const roleTranslations = pgTable(
  'role_translations',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    locale: text('locale').notNull(),
    origin: text('origin', { enum: ['author', 'machine'] }).notNull(),
    name: text('name'),
    introduction: text('introduction').notNull().default(''),
    scenario: text('scenario').notNull().default(''),
    firstMessage: text('first_message').notNull().default(''),
    alternateGreetings: jsonb('alternate_greetings').$type<string[]>().notNull().default([]),
    sourceHash: text('source_hash').notNull(),
    stale: boolean('stale').notNull().default(false),
    /** Localized name, the tags' names in this locale and the introduction, as `searchWords` splits them. */
    searchText: text('search_text').notNull().default(''),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs((): SQL => sql`to_tsvector('simple', ${roleTranslations.searchText})`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.roleId, table.locale] }),
    check('role_translations_origin', sql`${table.origin} in ('author', 'machine')`),
    index('role_translations_search_idx').using('gin', table.search),
    index('role_translations_locale_idx').on(table.locale, table.roleId),
  ],
)

export type RoleTranslationRow = typeof roleTranslations.$inferSelect
