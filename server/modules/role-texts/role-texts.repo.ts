import { type AnyColumn, and, asc, desc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm'
import type { Locale } from '#contracts/locales.ts'
import type { RoleTexts, TranslationOrigin } from '#contracts/role-texts.ts'
import type { Db, Tx } from '#db/client.ts'
import { roleTranslations } from '#db/schema/role-texts.ts'
import { roles, roleTags, tags } from '#db/schema/roles.ts'
import { translationSearchText } from './search-text.ts'

/**
 * The only file that reads or writes `role_translations` (ADR 039). Other repos use the SQL
 * fragments and the one in-transaction write exported here, as the jobs repo's `insertJob` is used:
 * the catalogue's search and sitemaps in its own queries, the characters repo marking translations
 * stale in the transaction that changes a role's source texts.
 */

export type TranslationRow = {
  roleId: number
  locale: string
  origin: TranslationOrigin
  name: string | null
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
  sourceHash: string
  stale: boolean
  updatedAt: Date
}

/** A translation as a listing card shows it. */
export type TranslationSummaryRow = Pick<TranslationRow, 'roleId' | 'name' | 'introduction' | 'origin' | 'stale'>

/** A role as the translations need it: who owns it, its language and its source texts. */
export type RoleSource = RoleTexts & {
  id: number
  publicId: string
  creatorId: string | null
  visibility: 'public' | 'private'
  sourceLanguage: string
}

export type TranslationWrite = {
  origin: TranslationOrigin
  name: string | null
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
  sourceHash: string
  stale: boolean
}

const rowColumns = {
  roleId: roleTranslations.roleId,
  locale: roleTranslations.locale,
  origin: roleTranslations.origin,
  name: roleTranslations.name,
  introduction: roleTranslations.introduction,
  scenario: roleTranslations.scenario,
  firstMessage: roleTranslations.firstMessage,
  alternateGreetings: roleTranslations.alternateGreetings,
  sourceHash: roleTranslations.sourceHash,
  stale: roleTranslations.stale,
  updatedAt: roleTranslations.updatedAt,
}

/** A query of the ids of roles whose translation into `locale` matches `tsQuery` (search words). */
export function translationSearchIds(locale: Locale, tsQuery: string): SQL {
  return sql`select ${roleTranslations.roleId} from ${roleTranslations} where ${roleTranslations.locale} = ${locale} and ${roleTranslations.search} @@ to_tsquery('simple', ${tsQuery})`
}

/**
 * Whether the role (by its id column) has a translation into `locale` matching `tsQuery`: a test of
 * one row (the (locale, role_id) index), for listings that walk an order's index row by row.
 */
export function translationMatches(roleId: AnyColumn, locale: Locale, tsQuery: string): SQL {
  return sql`exists (select 1 from ${roleTranslations} where ${roleTranslations.roleId} = ${roleId} and ${roleTranslations.locale} = ${locale} and ${roleTranslations.search} @@ to_tsquery('simple', ${tsQuery}))`
}

/** Whether the role (by its id column) has a translation in `locale` that is not stale. */
export function hasFreshTranslation(roleId: AnyColumn, locale: Locale): SQL {
  return sql`exists (select 1 from ${roleTranslations} where ${roleTranslations.roleId} = ${roleId} and ${roleTranslations.locale} = ${locale} and not ${roleTranslations.stale})`
}

/** The locales the role (by its id column) has a translation in that is not stale, as a text array. */
export function freshTranslationLocales(roleId: AnyColumn): SQL<string[]> {
  return sql<
    string[]
  >`array(select ${roleTranslations.locale} from ${roleTranslations} where ${roleTranslations.roleId} = ${roleId} and not ${roleTranslations.stale} order by ${roleTranslations.locale})`
}

async function tagNamesOf(executor: Db | Tx, roleId: number): Promise<Record<string, string>[]> {
  const rows = await executor
    .select({ names: tags.names })
    .from(roleTags)
    .innerJoin(tags, eq(tags.id, roleTags.tagId))
    // A tag the public does not see is not found by search either (ADR 059).
    .where(and(eq(roleTags.roleId, roleId), eq(tags.state, 'visible')))
  return rows.map((row) => row.names)
}

/**
 * After a role's source texts or tags were written (in `tx`): its translations made from other
 * source texts (another hash) are marked stale, and every translation's search text is derived
 * again (the source name and introduction fill untranslated fields; tag names may have changed).
 * Returns how many translations became stale.
 */
export async function afterSourceWrite(tx: Tx, roleId: number, sourceHash: string): Promise<number> {
  const marked = await tx
    .update(roleTranslations)
    .set({ stale: true })
    .where(
      and(
        eq(roleTranslations.roleId, roleId),
        ne(roleTranslations.sourceHash, sourceHash),
        eq(roleTranslations.stale, false),
      ),
    )
    .returning({ locale: roleTranslations.locale })
  await refreshSearchTexts(tx, roleId)
  return marked.length
}

/**
 * Derives a role's translations' search texts again after its tags changed without its texts (a
 * tag renamed, hidden, shown or merged by an operator, ADR 059), in the caller's transaction.
 */
export async function refreshTranslationSearchTexts(tx: Tx, roleId: number): Promise<void> {
  await refreshSearchTexts(tx, roleId)
}

async function refreshSearchTexts(executor: Db | Tx, roleId: number, only?: string) {
  const [role] = await executor
    .select({ name: roles.name, introduction: roles.introduction })
    .from(roles)
    .where(eq(roles.id, roleId))
  if (!role) return
  const tagNames = await tagNamesOf(executor, roleId)
  const rows = await executor
    .select({
      locale: roleTranslations.locale,
      name: roleTranslations.name,
      introduction: roleTranslations.introduction,
    })
    .from(roleTranslations)
    .where(
      only === undefined
        ? eq(roleTranslations.roleId, roleId)
        : and(eq(roleTranslations.roleId, roleId), eq(roleTranslations.locale, only)),
    )
  for (const row of rows) {
    const searchText = translationSearchText(
      row.locale as Locale,
      { name: row.name || role.name, introduction: row.introduction || role.introduction },
      tagNames,
    )
    await executor
      .update(roleTranslations)
      .set({ searchText })
      .where(and(eq(roleTranslations.roleId, roleId), eq(roleTranslations.locale, row.locale)))
  }
}

export function createRoleTextsRepo(db: Db) {
  return {
    /** A role by its public id, with what its translations are compared to and checked against. */
    async findRole(publicId: string): Promise<RoleSource | null> {
      const [row] = await db
        .select({
          id: roles.id,
          publicId: roles.publicId,
          creatorId: roles.creatorId,
          visibility: roles.visibility,
          sourceLanguage: roles.sourceLanguage,
          name: roles.name,
          introduction: roles.introduction,
          scenario: roles.scenario,
          firstMessage: roles.firstMessage,
          alternateGreetings: roles.alternateGreetings,
        })
        .from(roles)
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    /** The translations of these roles into `locale` (one query, whatever the number of roles). */
    async translationsIn(roleIds: number[], locale: string): Promise<TranslationRow[]> {
      if (roleIds.length === 0) return []
      return db
        .select(rowColumns)
        .from(roleTranslations)
        .where(and(inArray(roleTranslations.roleId, roleIds), eq(roleTranslations.locale, locale)))
    },

    /** What a listing shows of these roles' translations into `locale`: name and the start of the introduction. */
    async summariesIn(roleIds: number[], locale: string): Promise<TranslationSummaryRow[]> {
      if (roleIds.length === 0) return []
      return db
        .select({
          roleId: roleTranslations.roleId,
          name: roleTranslations.name,
          introduction: sql<string>`left(${roleTranslations.introduction}, 400)`,
          origin: roleTranslations.origin,
          stale: roleTranslations.stale,
        })
        .from(roleTranslations)
        .where(and(inArray(roleTranslations.roleId, roleIds), eq(roleTranslations.locale, locale)))
    },

    /** Every translation of one role, by locale. */
    async translationsOf(roleId: number): Promise<TranslationRow[]> {
      return db
        .select(rowColumns)
        .from(roleTranslations)
        .where(eq(roleTranslations.roleId, roleId))
        .orderBy(asc(roleTranslations.locale))
    },

    /**
     * Writes a translation (insert or replace). `keepAuthor`: an author's translation of that locale
     * stays as it is (a machine translation never replaces one). Returns whether a row was written.
     */
    async upsert(roleId: number, locale: string, write: TranslationWrite, keepAuthor = false): Promise<boolean> {
      return db.transaction(async (tx) => {
        const values = { ...write, updatedAt: new Date() }
        const written = await tx
          .insert(roleTranslations)
          .values({ roleId, locale, ...values })
          .onConflictDoUpdate({
            target: [roleTranslations.roleId, roleTranslations.locale],
            set: values,
            ...(keepAuthor ? { setWhere: sql`${roleTranslations.origin} <> 'author'` } : {}),
          })
          .returning({ locale: roleTranslations.locale })
        if (written.length === 0) return false
        await refreshSearchTexts(tx, roleId, locale)
        return true
      })
    },

    async remove(roleId: number, locale: string): Promise<boolean> {
      const removed = await db
        .delete(roleTranslations)
        .where(and(eq(roleTranslations.roleId, roleId), eq(roleTranslations.locale, locale)))
        .returning({ locale: roleTranslations.locale })
      return removed.length > 0
    },

    /**
     * Up to `limit` public roles (public ids), most popular first, that have texts to translate, are
     * not written in `locale` and have no translation there that is fresh or the author's: what the
     * translation job may translate ahead of visits (ADR 040).
     */
    async rolesToTranslate(locale: string, limit: number): Promise<string[]> {
      const rows = await db
        .select({ publicId: roles.publicId })
        .from(roles)
        .where(
          and(
            eq(roles.visibility, 'public'),
            ne(roles.sourceLanguage, locale),
            sql`(${roles.introduction} <> '' or ${roles.scenario} <> '' or ${roles.firstMessage} <> '' or jsonb_array_length(${roles.alternateGreetings}) > 0)`,
            sql`not exists (select 1 from ${roleTranslations} where ${roleTranslations.roleId} = ${roles.id} and ${roleTranslations.locale} = ${locale} and (not ${roleTranslations.stale} or ${roleTranslations.origin} = 'author'))`,
          ),
        )
        .orderBy(desc(roles.popularity), desc(roles.id))
        .limit(limit)
      return rows.map((row) => row.publicId)
    },
  }
}

export type RoleTextsRepo = ReturnType<typeof createRoleTextsRepo>
