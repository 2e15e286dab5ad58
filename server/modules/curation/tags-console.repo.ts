import { and, asc, eq, ilike, inArray, or, type SQL, sql } from 'drizzle-orm'
import type { TagState } from '#contracts/admin-tags.ts'
import type { Db, Tx } from '#db/client.ts'
import { roles, roleTags, tags } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { refreshTranslationSearchTexts } from '#server/modules/role-texts/role-texts.repo.ts'
import { roleSearchText } from '#server/modules/role-texts/search-text.ts'

export type TagFilter = { state?: TagState | undefined; q?: string | undefined }

export type TagConsoleRow = {
  id: number
  slug: string
  names: Record<string, string>
  userMade: boolean
  creatorId: string | null
  creatorUsername: string | null
  characterCount: number
  state: TagState
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The operator's side of the tags table (ADR 059): the list with counts, and the writes of rename,
 * merge and state, each in the caller's transaction. Every write derives the search texts of the
 * characters carrying the tag again (a hidden tag's names are not searchable).
 */
export function createTagsConsoleRepo(db: Db) {
  /** Roles carrying a tag, for the search texts to follow a change of it. */
  async function roleIdsCarrying(tx: Tx, tagId: number): Promise<number[]> {
    const rows = await tx.select({ roleId: roleTags.roleId }).from(roleTags).where(eq(roleTags.tagId, tagId))
    return rows.map((row) => row.roleId)
  }

  /** Each role's own search text (name, introduction, public tags' names) and its translations'. */
  async function refreshSearchTexts(tx: Tx, roleIds: number[]) {
    if (roleIds.length === 0) return
    const roleRows = await tx
      .select({
        id: roles.id,
        name: roles.name,
        introduction: roles.introduction,
        sourceLanguage: roles.sourceLanguage,
        searchText: roles.searchText,
      })
      .from(roles)
      .where(inArray(roles.id, roleIds))
    const tagRows = await tx
      .select({ roleId: roleTags.roleId, names: tags.names })
      .from(roleTags)
      .innerJoin(tags, eq(tags.id, roleTags.tagId))
      .where(and(inArray(roleTags.roleId, roleIds), eq(tags.state, 'visible')))
    for (const role of roleRows) {
      const names = tagRows.filter((row) => row.roleId === role.id).map((row) => row.names)
      const searchText = roleSearchText(role, names)
      // Unchanged texts are not written: the catalogue version moves only when a listing changes.
      if (searchText !== role.searchText) await tx.update(roles).set({ searchText }).where(eq(roles.id, role.id))
      await refreshTranslationSearchTexts(tx, role.id)
    }
  }

  return {
    async page(
      filter: TagFilter,
      page: number,
      pageSize: number,
    ): Promise<{ rows: TagConsoleRow[]; hasMore: boolean }> {
      const conditions: SQL[] = []
      if (filter.state) conditions.push(eq(tags.state, filter.state))
      if (filter.q) {
        const pattern = likePattern(filter.q)
        const byName = sql`exists (select 1 from jsonb_each_text(${tags.names}) as n where n.value ilike ${pattern})`
        const either = or(ilike(tags.slug, pattern), byName)
        if (either) conditions.push(either)
      }
      const rows = await db
        .select({
          id: tags.id,
          slug: tags.slug,
          names: tags.names,
          userMade: tags.userMade,
          creatorId: tags.createdBy,
          creatorUsername: users.username,
          characterCount: sql<number>`(select count(*) from ${roleTags} where ${roleTags.tagId} = ${tags.id})::int`,
          state: tags.state,
        })
        .from(tags)
        .leftJoin(users, eq(users.id, tags.createdBy))
        .where(conditions.length > 0 ? and(...conditions) : undefined)
        // Pending first (they wait for someone), then by slug.
        .orderBy(sql`${tags.state} = 'pending' desc`, asc(tags.slug))
        .limit(pageSize + 1)
        .offset((page - 1) * pageSize)
      return { rows: rows.slice(0, pageSize), hasMore: rows.length > pageSize }
    },

    async findBySlug(executor: Db | Tx, slug: string) {
      const [row] = await executor
        .select({ id: tags.id, slug: tags.slug, names: tags.names, state: tags.state, userMade: tags.userMade })
        .from(tags)
        .where(eq(tags.slug, slug))
        .limit(1)
      return row ?? null
    },

    /** Every tag's names, for refusing a rename onto another tag's name. */
    async allNames(tx: Tx) {
      return tx.select({ id: tags.id, slug: tags.slug, names: tags.names }).from(tags)
    },

    async rename(tx: Tx, tagId: number, names: Record<string, string>) {
      await tx.update(tags).set({ names }).where(eq(tags.id, tagId))
      await refreshSearchTexts(tx, await roleIdsCarrying(tx, tagId))
    },

    async setState(tx: Tx, tagId: number, state: TagState) {
      await tx.update(tags).set({ state }).where(eq(tags.id, tagId))
      await refreshSearchTexts(tx, await roleIdsCarrying(tx, tagId))
    },

    /**
     * Every character carrying `fromId` carries `intoId` (once: one carrying both keeps one row),
     * then `fromId` goes with its rows. The role_tags triggers copy the listing keys into the new
     * rows and bump the catalogue version. Returns how many characters carried it.
     */
    async merge(tx: Tx, fromId: number, intoId: number): Promise<{ moved: number; carried: number }> {
      const carried = await roleIdsCarrying(tx, fromId)
      // Only the ids are written: the role_tags triggers (migration 0002) fill in the listing keys.
      const result = await tx.execute(sql`
        insert into ${roleTags} (role_id, tag_id)
        select ${roleTags.roleId}, ${intoId}::int from ${roleTags} where ${roleTags.tagId} = ${fromId}
        on conflict do nothing
        returning role_id`)
      const moved = (result as unknown as { rows: unknown[] }).rows
      await tx.delete(tags).where(eq(tags.id, fromId))
      await refreshSearchTexts(tx, carried)
      return { moved: moved.length, carried: carried.length }
    },
  }
}

export type TagsConsoleRepo = ReturnType<typeof createTagsConsoleRepo>
