// Over 400 lines for a reason: the listing's keyset pagination (sort keys, anchors, counts; ADR 013)
// and the character page, sitemap and seed reads all build on the same key columns and summary
// columns defined at the top; splitting them would export those internals to several files.
import { type AnyColumn, and, eq, exists, inArray, type SQL, sql } from 'drizzle-orm'
import type { RoleSort } from '#contracts/catalogue.ts'
import type { CardExtras, Lorebook } from '#contracts/characters.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Db } from '#db/client.ts'
import { catalogueVersion, roleRatings, roles, roleTags, tags } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import {
  freshTranslationLocales,
  hasFreshTranslation,
  translationMatches,
  translationSearchIds,
} from '#server/modules/role-texts/role-texts.repo.ts'
import { roleSearchText } from '#server/modules/role-texts/search-text.ts'

/**
 * A role's place in one listing order: its sort key then its id, each as PostgreSQL prints it
 * (text is exact for every type involved: timestamps keep their microseconds, `real` prints the
 * shortest form that reads back to the same value).
 */
export type ListingKey = string[]

/** Which public roles a listing shows, in which order. */
export type ListingFilter = {
  sort: RoleSort
  tagIds: number[]
  /** A tsquery built by the service from the user's words (letters, marks and digits only). */
  tsQuery?: string | undefined
  /** The visitor's locale: a search also matches the roles' translations into it (ADR 039). */
  locale?: Locale | undefined
}

export type RoleListFilter = ListingFilter & {
  offset: number
  limit: number
  /** Keyset seek: only roles after this key in the order, `offset` then counts from there. */
  after?: ListingKey | undefined
  /**
   * How a search without tags finds its page: walking the order's index and testing each role
   * ('index': cheap when matches are common), or collecting every match from the search index and
   * sorting them ('matches', the default: cheap when they are few). The service chooses from the
   * counts; the planner cannot, as it does not know what testing a role's search vector costs.
   */
  searchPath?: 'index' | 'matches' | undefined
}

/** The columns of each order, the id last; each with the type its key is read back as. */
type KeyColumns = [AnyColumn, string][]
const KEYS: Record<RoleSort, { roles: KeyColumns; roleTags: KeyColumns }> = {
  popularity: {
    roles: [
      [roles.popularity, 'integer'],
      [roles.id, 'bigint'],
    ],
    roleTags: [
      [roleTags.popularity, 'integer'],
      [roleTags.roleId, 'bigint'],
    ],
  },
  newest: {
    roles: [
      [roles.createdAt, 'timestamptz'],
      [roles.id, 'bigint'],
    ],
    roleTags: [
      [roleTags.createdAt, 'timestamptz'],
      [roleTags.roleId, 'bigint'],
    ],
  },
  rating: {
    roles: [
      [roles.ratingAverage, 'real'],
      [roles.ratingCount, 'integer'],
      [roles.id, 'bigint'],
    ],
    roleTags: [
      [roleTags.ratingAverage, 'real'],
      [roleTags.ratingCount, 'integer'],
      [roleTags.roleId, 'bigint'],
    ],
  },
}

// Every column descending; NULLS LAST matches the indexes (drizzle-kit writes them that way) and
// the columns are NOT NULL. The id breaks ties, so the order is total and pages never overlap.
const orderOf = (columns: KeyColumns): SQL[] => columns.map(([column]) => sql`${column} desc nulls last`)

/**
 * Rows after `key` in a descending order: one row comparison, which the btree index of the order
 * answers as a seek (`Index Cond: ROW(...) < ROW(...)`), not a filter.
 */
function afterKey(columns: KeyColumns, key: ListingKey): SQL {
  if (key.length !== columns.length) throw new Error(`listing key has ${key.length} parts, expected ${columns.length}`)
  const left = sql.join(
    columns.map(([column]) => sql`${column}`),
    sql`, `,
  )
  const right = sql.join(
    columns.map(([, type], i) => sql`${key[i]}::${sql.raw(type)}`),
    sql`, `,
  )
  return sql`(${left}) < (${right})`
}

const ORDER: Record<RoleSort, SQL[]> = {
  popularity: orderOf(KEYS.popularity.roles),
  newest: orderOf(KEYS.newest.roles),
  rating: orderOf(KEYS.rating.roles),
}

const summaryColumns = {
  id: roles.id,
  publicId: roles.publicId,
  name: roles.name,
  avatarImageId: roles.avatarImageId,
  avatarBlurredImageId: roles.avatarBlurredImageId,
  introduction: sql<string>`left(${roles.introduction}, 400)`,
  chatCount: roles.chatCount,
  popularity: roles.popularity,
  ratingAverage: roles.ratingAverage,
  ratingCount: roles.ratingCount,
  createdAt: roles.createdAt,
  isAdult: roles.isAdult,
  sourceLanguage: roles.sourceLanguage,
}

export type RoleSummaryRow = {
  id: number
  publicId: string
  name: string
  avatarImageId: string | null
  avatarBlurredImageId: string | null
  introduction: string
  chatCount: number
  popularity: number
  ratingAverage: number
  ratingCount: number
  createdAt: Date
  isAdult: boolean
  sourceLanguage: string
}

/** A role of a listing page, with the ids of its tags. */
export type ListedRoleRow = RoleSummaryRow & { tagIds: number[] }

export type SitemapRoleRow = { publicId: string; updatedAt: Date; sourceLanguage: string; translated: string[] }
export type SitemapRoleStats = {
  count: number
  /** Per locale, how many of them have their own text in it (source language or fresh translation). */
  perLocale: Record<string, number>
  longestId: number
  lastModified: Date | null
}

export type NewRole = {
  publicId: string
  name: string
  tagSlugs: string[]
  isAdult?: boolean
  visibility?: 'public' | 'private'
  creatorId?: string | null
  avatarImageId?: string | null
  avatarBlurredImageId?: string | null
  bannerImageId?: string | null
  introduction?: string
  scenario?: string
  personality?: string
  description?: string
  firstMessage?: string
  alternateGreetings?: string[]
  exampleDialogue?: string
  characterBook?: Lorebook | null
  cardExtras?: Partial<CardExtras>
  /** The locale the texts are written in; default English (ADR 039). */
  sourceLanguage?: string
  chatCount?: number
  popularity?: number
  createdAt?: Date
}

export function createCatalogueRepo(db: Db) {
  /**
   * Ids of the roles whose own search words match, or whose translation into the visitor's locale
   * does (each answered by its GIN index; `in` makes the union a semi-join, duplicates do not matter).
   */
  const matchingIds = (tsQuery: string, locale: Locale | undefined) => {
    const own = sql`select ${roles.id} from ${roles} where ${roles.search} @@ to_tsquery('simple', ${tsQuery})`
    return locale ? sql`${own} union all ${translationSearchIds(locale, tsQuery)}` : own
  }
  /**
   * The same test on one `roles` row, for a walk of the order's index (a common word): each row
   * visited is tested by itself, instead of every match being collected first (hashed `in`).
   */
  const rowMatches = (tsQuery: string, locale: Locale | undefined) => {
    const own = sql`${roles.search} @@ to_tsquery('simple', ${tsQuery})`
    return locale ? sql`(${own} or ${translationMatches(roles.id, locale, tsQuery)})` : own
  }
  const versionQuery = db
    .select({ version: sql<string>`${catalogueVersion.version}::text` })
    .from(catalogueVersion)
    .where(eq(catalogueVersion.id, 1))
    .prepare('catalogue_listing_version')

  /**
   * The public roles of a listing: the columns of its order (`keys`), the table they are read from
   * and the conditions. Tag filters read role_tags, whose copies of the listing keys have one
   * index per sort per tag (the first tag's; the other tags and the search narrow it down).
   */
  function source(filter: ListingFilter & Pick<RoleListFilter, 'searchPath'>) {
    if (filter.tagIds.length === 0) {
      const conditions: SQL[] = [eq(roles.visibility, 'public')]
      if (filter.tsQuery) {
        // `is true` keeps the planner from answering it with the search index.
        conditions.push(
          filter.searchPath === 'index'
            ? sql`(${rowMatches(filter.tsQuery, filter.locale)}) is true`
            : sql`${roles.id} in (${matchingIds(filter.tsQuery, filter.locale)})`,
        )
      }
      return { keys: KEYS[filter.sort].roles, id: roles.id, table: roles, conditions }
    }
    const [first, ...others] = filter.tagIds
    const conditions: SQL[] = [sql`${roleTags.tagId} = ${first}`, sql`${roleTags.isPublic}`]
    for (const tagId of others) {
      conditions.push(sql`${roleTags.roleId} in (select role_id from role_tags where tag_id = ${tagId})`)
    }
    if (filter.tsQuery) {
      conditions.push(sql`${roleTags.roleId} in (${matchingIds(filter.tsQuery, filter.locale)})`)
    }
    return { keys: KEYS[filter.sort].roleTags, id: roleTags.roleId, table: roleTags, conditions }
  }

  /** Ids of one page, in order: from the order's index alone, skipping `offset` entries after `after`. */
  function pageIds(filter: RoleListFilter): SQL {
    const { keys, id, table, conditions } = source(filter)
    const where = and(...(filter.after ? [...conditions, afterKey(keys, filter.after)] : conditions))
    const order = sql.join(orderOf(keys), sql`, `)
    if (filter.tsQuery && filter.tagIds.length === 0 && filter.searchPath !== 'index') {
      // Every match first (a materialised CTE: the planner may not turn it into an index walk),
      // named like the table so the order's columns name its columns.
      const columns = sql.join(
        keys.map(([column]) => sql`${column}`),
        sql`, `,
      )
      return sql`with matching as materialized (select ${columns} from ${roles} where ${where}) select ${roles.id} from matching as ${roles} order by ${order} limit ${filter.limit} offset ${filter.offset}`
    }
    return sql`select ${id} from ${table} where ${where} order by ${order} limit ${filter.limit} offset ${filter.offset}`
  }

  return {
    /** The catalogue version (see `catalogueVersion`): caches of listings are keyed by it. */
    async listingVersion(): Promise<string> {
      const [row] = await versionQuery.execute()
      return row?.version ?? '0'
    },

    /** Drops every cached listing; the triggers already do this for changes made in the database. */
    async bumpListingVersion(): Promise<void> {
      await db
        .update(catalogueVersion)
        .set({
          version: sql`greatest(${catalogueVersion.version} + 1, (extract(epoch from clock_timestamp()) * 1000)::bigint)`,
        })
        .where(eq(catalogueVersion.id, 1))
    },

    /**
     * One page of public roles, in the chosen order, with the ids of their tags. Deferred join:
     * the page's ids come from the sort index alone (no row is read for the ones skipped by the
     * offset), then only those rows are fetched.
     */
    async listPublicRoles(filter: RoleListFilter): Promise<ListedRoleRow[]> {
      return db
        .select({
          ...summaryColumns,
          tagIds: sql<
            number[]
          >`array(select ${roleTags.tagId} from ${roleTags} where ${roleTags.roleId} = ${roles.id})`,
        })
        .from(roles)
        .where(sql`${roles.id} in (${pageIds(filter)})`)
        .orderBy(...ORDER[filter.sort])
    },

    /**
     * Page anchors: the key of every `every`-th role of the listing (positions every, 2 × every,
     * ... counted from 1), read in one scan of the order's index. A page at offset o then starts
     * after anchor floor(o / every) with a short offset, instead of walking o index entries.
     */
    async listingAnchors(filter: ListingFilter, every: number): Promise<ListingKey[]> {
      const { keys, table, conditions } = source(filter)
      const columns = sql.join(
        keys.map(([column], i) => sql`${column} as ${sql.raw(`k${i}`)}`),
        sql`, `,
      )
      const asText = sql.join(
        keys.map((_, i) => sql.raw(`k${i}::text as k${i}`)),
        sql`, `,
      )
      const result = await db.execute(sql`
        select ${asText} from (
          select ${columns}, row_number() over (order by ${sql.join(orderOf(keys), sql`, `)}) as position
            from ${table} where ${and(...conditions)}
        ) as listing
        where position % ${every} = 0
        order by position`)
      const rows = (result as unknown as { rows: Record<string, string>[] }).rows
      return rows.map((row) => keys.map((_, i) => String(row[`k${i}`])))
    },

    /** How many public roles match; the service caches it, as it costs a scan of every match. */
    async countPublicRoles(filter: ListingFilter): Promise<number> {
      const { table, conditions } = source(filter)
      const [row] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(table)
        .where(and(...conditions))
      return row?.total ?? 0
    },

    /**
     * One character for its page. The creator's name is read from the users table (owned by the
     * users, auth and account repos) in this same query: the character page is one of the hottest
     * reads, and a second round trip per page for a name is not worth it. Read only; this repo
     * never writes users.
     */
    async findRoleByPublicId(publicId: string) {
      const [row] = await db
        .select({
          ...summaryColumns,
          introduction: roles.introduction,
          bannerImageId: roles.bannerImageId,
          scenario: roles.scenario,
          personality: roles.personality,
          description: roles.description,
          firstMessage: roles.firstMessage,
          alternateGreetings: roles.alternateGreetings,
          exampleDialogue: roles.exampleDialogue,
          visibility: roles.visibility,
          creatorId: roles.creatorId,
          creatorUsername: users.username,
          updatedAt: roles.updatedAt,
          translated: freshTranslationLocales(roles.id),
        })
        .from(roles)
        .leftJoin(users, eq(users.id, roles.creatorId))
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    /** The public tags of each role, for a page of results (a hidden or pending tag is left out, ADR 059). */
    async tagsOfRoles(roleIds: number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({ roleId: roleTags.roleId, slug: tags.slug, names: tags.names })
        .from(roleTags)
        .innerJoin(tags, eq(tags.id, roleTags.tagId))
        .where(and(inArray(roleTags.roleId, roleIds), eq(tags.state, 'visible')))
        .orderBy(tags.slug)
    },

    /**
     * Every tag the public may see (an operator's hidden and the pending ones are not, ADR 059);
     * `onPublicRole` when a public character carries it (only those are listed).
     */
    async allTags() {
      const carried = db
        .select({ tagId: roleTags.tagId })
        .from(roleTags)
        .where(and(eq(roleTags.tagId, tags.id), roleTags.isPublic))
      return db
        .select({ id: tags.id, slug: tags.slug, names: tags.names, onPublicRole: exists(carried).mapWith(Boolean) })
        .from(tags)
        .where(eq(tags.state, 'visible'))
        .orderBy(tags.id)
    },

    /**
     * The public roles among `ids` as listing rows with their tags' ids, in no particular order
     * (the featured characters, ADR 059: the caller keeps its own order).
     */
    async publicRolesByIds(ids: number[]): Promise<ListedRoleRow[]> {
      if (ids.length === 0) return []
      return db
        .select({
          ...summaryColumns,
          tagIds: sql<
            number[]
          >`array(select ${roleTags.tagId} from ${roleTags} where ${roleTags.roleId} = ${roles.id})`,
        })
        .from(roles)
        .where(and(inArray(roles.id, ids), eq(roles.visibility, 'public')))
    },

    /** Public roles that are not adult, most popular first; with `tagIds`, those carrying any of them. */
    async listSafePublicRoles(filter: { tagIds: number[]; limit: number }): Promise<RoleSummaryRow[]> {
      const conditions: SQL[] = [eq(roles.visibility, 'public'), eq(roles.isAdult, false)]
      if (filter.tagIds.length > 0) {
        conditions.push(
          sql`${roles.id} in (select ${roleTags.roleId} from ${roleTags} where ${inArray(roleTags.tagId, filter.tagIds)})`,
        )
      }
      return db
        .select(summaryColumns)
        .from(roles)
        .where(and(...conditions))
        .orderBy(...ORDER.popularity)
        .limit(filter.limit)
    },

    /**
     * The sitemaps' share of public, non-adult roles, in a stable order (by id), with the locales
     * that have the role's own text: its source language and its fresh translations (ADR 039).
     * With `locale`, only the roles that have their own text in it.
     */
    async listSitemapRoles(offset: number, limit: number, locale?: Locale): Promise<SitemapRoleRow[]> {
      const conditions: SQL[] = [eq(roles.visibility, 'public'), eq(roles.isAdult, false)]
      if (locale)
        conditions.push(sql`(${roles.sourceLanguage} = ${locale} or ${hasFreshTranslation(roles.id, locale)})`)
      return db
        .select({
          publicId: roles.publicId,
          updatedAt: roles.updatedAt,
          sourceLanguage: roles.sourceLanguage,
          translated: freshTranslationLocales(roles.id),
        })
        .from(roles)
        .where(and(...conditions))
        .orderBy(roles.id)
        .limit(limit)
        .offset(offset)
    },

    /**
     * How many roles the sitemaps list (in all, and per locale that has their own text), the
     * longest public id among them (bytes), the latest change.
     */
    async sitemapRoleStats(): Promise<SitemapRoleStats> {
      const listed = and(eq(roles.visibility, 'public'), eq(roles.isAdult, false))
      const [row] = await db
        .select({
          count: sql<number>`count(*)::int`,
          longestId: sql<number>`coalesce(max(octet_length(${roles.publicId})), 0)::int`,
          lastModified: sql<Date | null>`max(${roles.updatedAt})`.mapWith(roles.updatedAt),
        })
        .from(roles)
        .where(listed)
      const locales = db
        .select({
          locale: sql<string>`unnest(array_append(${freshTranslationLocales(roles.id)}, ${roles.sourceLanguage}))`.as(
            'locale',
          ),
        })
        .from(roles)
        .where(listed)
        .as('listed')
      const perLocale = await db
        .select({ locale: locales.locale, count: sql<number>`count(*)::int` })
        .from(locales)
        .groupBy(locales.locale)
      return {
        count: row?.count ?? 0,
        perLocale: Object.fromEntries(perLocale.map((r) => [r.locale, r.count])),
        longestId: row?.longestId ?? 0,
        lastModified: row?.lastModified ?? null,
      }
    },

    async upsertTags(list: { slug: string; names: Record<string, string> }[]) {
      if (list.length === 0) return
      await db
        .insert(tags)
        .values(list)
        .onConflictDoUpdate({ target: tags.slug, set: { names: sql`excluded.names` } })
    },

    async publicIdsExisting(publicIds: string[]): Promise<Set<string>> {
      if (publicIds.length === 0) return new Set()
      const rows = await db.select({ publicId: roles.publicId }).from(roles).where(inArray(roles.publicId, publicIds))
      return new Set(rows.map((r) => r.publicId))
    },

    /**
     * Inserts roles with their tags in one transaction; roles whose public id exists are skipped.
     * The search text (name, every tag name, introduction) is derived here and, the same way, by
     * the characters repo (roles users create and edit).
     */
    async insertRoles(list: NewRole[]): Promise<number> {
      if (list.length === 0) return 0
      return db.transaction(async (tx) => {
        const known = await tx.select({ id: tags.id, slug: tags.slug, names: tags.names, state: tags.state }).from(tags)
        const bySlug = new Map(known.map((t) => [t.slug, t]))
        const inserted = await tx
          .insert(roles)
          .values(
            list.map(({ tagSlugs, ...role }) => ({
              ...role,
              searchText: roleSearchText(
                { name: role.name, introduction: role.introduction ?? '', sourceLanguage: role.sourceLanguage ?? 'en' },
                tagSlugs.flatMap((slug) => {
                  const tag = bySlug.get(slug)
                  // A tag the public does not see is not found by search either (ADR 059).
                  return tag?.state === 'visible' ? [tag.names] : []
                }),
              ),
            })),
          )
          .onConflictDoNothing({ target: roles.publicId })
          .returning({ id: roles.id, publicId: roles.publicId })
        const idOf = new Map(inserted.map((r) => [r.publicId, r.id]))
        const links = list.flatMap((role) => {
          const roleId = idOf.get(role.publicId)
          if (roleId === undefined) return []
          return role.tagSlugs.flatMap((slug) => {
            const tag = bySlug.get(slug)
            return tag ? [{ roleId, tagId: tag.id }] : []
          })
        })
        for (let i = 0; i < links.length; i += 5000) await tx.insert(roleTags).values(links.slice(i, i + 5000))
        return inserted.length
      })
    },

    /** Records a rating (replacing the user's earlier one) and refreshes the role's aggregate. */
    async rateRole(publicId: string, userId: string, score: number): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [role] = await tx.select({ id: roles.id }).from(roles).where(eq(roles.publicId, publicId)).for('update')
        if (!role) return false
        await tx
          .insert(roleRatings)
          .values({ roleId: role.id, userId, score })
          .onConflictDoUpdate({ target: [roleRatings.roleId, roleRatings.userId], set: { score } })
        await tx
          .update(roles)
          .set({
            ratingCount: sql`(select count(*) from ${roleRatings} where ${roleRatings.roleId} = ${role.id})::int`,
            ratingSum: sql`(select coalesce(sum(${roleRatings.score}), 0) from ${roleRatings} where ${roleRatings.roleId} = ${role.id})::int`,
            ratingAverage: sql`(select coalesce(avg(${roleRatings.score}), 0) from ${roleRatings} where ${roleRatings.roleId} = ${role.id})::real`,
          })
          .where(eq(roles.id, role.id))
        return true
      })
    },
  }
}

export type CatalogueRepo = ReturnType<typeof createCatalogueRepo>
