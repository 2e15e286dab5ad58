import { and, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { RoleSort } from '#contracts/catalogue.ts'
import type { Db } from '#db/client.ts'
import { roleRatings, roles, roleTags, tags } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'

export type RoleListFilter = {
  sort: RoleSort
  offset: number
  limit: number
  tagIds: number[]
  /** A tsquery built by the service from the user's words (letters and digits only). */
  tsQuery?: string
}

// NULLS LAST matches the indexes (drizzle-kit writes them that way); the columns are NOT NULL.
const ORDER: Record<RoleSort, SQL[]> = {
  popularity: [sql`${roles.popularity} desc nulls last`, sql`${roles.id} desc nulls last`],
  newest: [sql`${roles.createdAt} desc nulls last`, sql`${roles.id} desc nulls last`],
  rating: [
    sql`${roles.ratingAverage} desc nulls last`,
    sql`${roles.ratingCount} desc nulls last`,
    sql`${roles.id} desc nulls last`,
  ],
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
  chatCount?: number
  popularity?: number
  createdAt?: Date
}

// The same orders on role_tags's copies of the keys (see db/schema/roles.ts).
const TAG_ORDER: Record<RoleSort, SQL[]> = {
  popularity: [sql`${roleTags.popularity} desc nulls last`, sql`${roleTags.roleId} desc nulls last`],
  newest: [sql`${roleTags.createdAt} desc nulls last`, sql`${roleTags.roleId} desc nulls last`],
  rating: [
    sql`${roleTags.ratingAverage} desc nulls last`,
    sql`${roleTags.ratingCount} desc nulls last`,
    sql`${roleTags.roleId} desc nulls last`,
  ],
}

export function createCatalogueRepo(db: Db) {
  const searchCondition = (tsQuery: string) => sql`${roles.search} @@ to_tsquery('simple', ${tsQuery})`

  /**
   * Ids of one page of public roles with every chosen tag, read from role_tags's own sort index
   * for the first tag (the others and the search narrow it down).
   */
  function taggedPage(filter: RoleListFilter, page: { limit: number; offset: number } | null): SQL {
    const [first, ...others] = filter.tagIds
    const conditions: SQL[] = [sql`${roleTags.tagId} = ${first}`, sql`${roleTags.isPublic}`]
    for (const tagId of others) {
      conditions.push(sql`${roleTags.roleId} in (select role_id from role_tags where tag_id = ${tagId})`)
    }
    if (filter.tsQuery) {
      conditions.push(sql`${roleTags.roleId} in (select id from roles where ${searchCondition(filter.tsQuery)})`)
    }
    const where = and(...conditions) as SQL
    if (!page) return sql`select ${roleTags.roleId} from ${roleTags} where ${where}`
    return sql`select ${roleTags.roleId} from ${roleTags} where ${where} order by ${sql.join(TAG_ORDER[filter.sort], sql`, `)} limit ${page.limit} offset ${page.offset}`
  }

  function untaggedConditions(filter: Pick<RoleListFilter, 'tsQuery'>): SQL {
    const conditions: SQL[] = [eq(roles.visibility, 'public')]
    if (filter.tsQuery) conditions.push(searchCondition(filter.tsQuery))
    return and(...conditions) as SQL
  }

  return {
    /** One page of public roles, in the chosen order. */
    async listPublicRoles(filter: RoleListFilter): Promise<RoleSummaryRow[]> {
      const query = db.select(summaryColumns).from(roles)
      if (filter.tagIds.length > 0) {
        return query
          .where(sql`${roles.id} in (${taggedPage(filter, { limit: filter.limit, offset: filter.offset })})`)
          .orderBy(...ORDER[filter.sort])
      }
      // Deferred join: the page's ids come from the sort index alone (no row is read for the ones
      // skipped by the offset), then only those rows are fetched.
      const pageIds = db
        .select({ id: roles.id })
        .from(roles)
        .where(untaggedConditions(filter))
        .orderBy(...ORDER[filter.sort])
        .limit(filter.limit)
        .offset(filter.offset)
      return query.where(inArray(roles.id, pageIds)).orderBy(...ORDER[filter.sort])
    },

    /** How many public roles match; the service caches it, as it costs a scan of every match. */
    async countPublicRoles(filter: Pick<RoleListFilter, 'tagIds' | 'tsQuery' | 'sort'>): Promise<number> {
      const [row] =
        filter.tagIds.length > 0
          ? await db
              .select({ total: sql<number>`count(*)::int` })
              .from(sql`(${taggedPage({ ...filter, offset: 0, limit: 0 }, null)}) as matches`)
          : await db.select({ total: sql<number>`count(*)::int` }).from(roles).where(untaggedConditions(filter))
      return row?.total ?? 0
    },

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
        })
        .from(roles)
        .leftJoin(users, eq(users.id, roles.creatorId))
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    /** Tags of each role, for a page of results. */
    async tagsOfRoles(roleIds: number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({ roleId: roleTags.roleId, slug: tags.slug, names: tags.names })
        .from(roleTags)
        .innerJoin(tags, eq(tags.id, roleTags.tagId))
        .where(inArray(roleTags.roleId, roleIds))
        .orderBy(tags.slug)
    },

    async allTags() {
      return db.select({ id: tags.id, slug: tags.slug, names: tags.names }).from(tags).orderBy(tags.id)
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

    /** The sitemaps' share of public, non-adult roles, in a stable order (by id). */
    async listSitemapRoles(offset: number, limit: number): Promise<{ publicId: string; updatedAt: Date }[]> {
      return db
        .select({ publicId: roles.publicId, updatedAt: roles.updatedAt })
        .from(roles)
        .where(and(eq(roles.visibility, 'public'), eq(roles.isAdult, false)))
        .orderBy(roles.id)
        .limit(limit)
        .offset(offset)
    },

    /** How many roles the sitemaps list, the longest public id among them (bytes), the latest change. */
    async sitemapRoleStats(): Promise<{ count: number; longestId: number; lastModified: Date | null }> {
      const [row] = await db
        .select({
          count: sql<number>`count(*)::int`,
          longestId: sql<number>`coalesce(max(octet_length(${roles.publicId})), 0)::int`,
          lastModified: sql<Date | null>`max(${roles.updatedAt})`.mapWith(roles.updatedAt),
        })
        .from(roles)
        .where(and(eq(roles.visibility, 'public'), eq(roles.isAdult, false)))
      return { count: row?.count ?? 0, longestId: row?.longestId ?? 0, lastModified: row?.lastModified ?? null }
    },

    async userShowsAdultContent(userId: string): Promise<boolean> {
      const [row] = await db.select({ show: users.showAdultContent }).from(users).where(eq(users.id, userId)).limit(1)
      return row?.show ?? false
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
        const known = await tx.select({ id: tags.id, slug: tags.slug, names: tags.names }).from(tags)
        const bySlug = new Map(known.map((t) => [t.slug, t]))
        const inserted = await tx
          .insert(roles)
          .values(
            list.map(({ tagSlugs, ...role }) => ({
              ...role,
              searchText: [
                role.name,
                ...tagSlugs.flatMap((slug) => Object.values(bySlug.get(slug)?.names ?? {})),
                role.introduction ?? '',
              ].join(' '),
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

    async setUserShowsAdultContent(userId: string, show: boolean) {
      await db.update(users).set({ showAdultContent: show, updatedAt: new Date() }).where(eq(users.id, userId))
    },
  }
}

export type CatalogueRepo = ReturnType<typeof createCatalogueRepo>
