import type { RoleDetail, RoleList, RoleListQuery, RoleSummary, Tag, Viewer } from '#contracts/catalogue.ts'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import type { CatalogueRepo, RoleSummaryRow } from './catalogue.repo.ts'

const SUMMARY_LENGTH = 180
const TAGS_TTL_MS = 60_000
const MAX_SEARCH_WORDS = 8
/** Totals of a listing are cached this long (shared by every instance when Redis is configured). */
const COUNT_TTL_MS = 30_000
const VERSION_KEY = 'catalogue:version'

/**
 * Turns what a user typed into a prefix-matching full-text query: every word must match the
 * start of a word in the name, tags or introduction. Only letters and digits survive, so the
 * result is always valid tsquery syntax whatever was typed.
 */
export function searchQueryFor(text: string | undefined): string | undefined {
  const words =
    (text ?? '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.slice(0, MAX_SEARCH_WORDS) ?? []
  return words.length > 0 ? words.map((w) => `${w}:*`).join(' & ') : undefined
}

export function summarise(introduction: string): string {
  const flat = introduction.replace(/\s+/g, ' ').trim()
  if (flat.length <= SUMMARY_LENGTH) return flat
  const cut = flat.slice(0, SUMMARY_LENGTH)
  const lastSpace = cut.lastIndexOf(' ')
  return `${(lastSpace > SUMMARY_LENGTH * 0.6 ? cut.slice(0, lastSpace) : cut).replace(/[\s,.;:!?-]+$/, '')}…`
}

function tagName(names: Record<string, string>, locale: string): string {
  return names[locale] ?? names[DEFAULT_LOCALE] ?? Object.values(names)[0] ?? ''
}

export function createCatalogueService(repo: CatalogueRepo, kv: KeyValueStore) {
  /**
   * Counting every match costs a scan; pages only need it to say "Page X of Y", so totals are
   * cached briefly. Adding, removing or publishing a role bumps the version, which drops them all.
   */
  async function countMatching(filter: { tagIds: number[]; tsQuery: string | undefined }) {
    const version = (await kv.get(VERSION_KEY)) ?? '0'
    const key = `catalogue:count:${version}:${filter.tagIds.join(',')}:${filter.tsQuery ?? ''}`
    const cached = await kv.get(key)
    if (cached !== null) return Number(cached)
    const total = await repo.countPublicRoles({ ...filter, sort: 'popularity' })
    await kv.set(key, String(total), COUNT_TTL_MS)
    return total
  }

  let tagCache: { at: number; rows: Awaited<ReturnType<CatalogueRepo['allTags']>> } | null = null
  async function allTags() {
    if (!tagCache || Date.now() - tagCache.at > TAGS_TTL_MS) tagCache = { at: Date.now(), rows: await repo.allTags() }
    return tagCache.rows
  }

  function summaryOf(row: RoleSummaryRow, roleTags: Tag[], viewer: Viewer): RoleSummary {
    const gated = row.isAdult && !viewer.adultConfirmed
    return {
      roleId: row.publicId,
      name: row.name,
      avatarUrl: imageUrl(gated ? row.avatarBlurredImageId : row.avatarImageId),
      tags: roleTags,
      summary: gated ? '' : summarise(row.introduction),
      chatCount: row.chatCount,
      popularity: row.popularity,
      rating: { average: Math.round(row.ratingAverage * 10) / 10, count: row.ratingCount },
      createdAt: row.createdAt.toISOString(),
      isAdult: row.isAdult,
      gated,
    }
  }

  async function tagsByRole(roleIds: number[], locale: string) {
    const byRole = new Map<number, Tag[]>()
    for (const row of await repo.tagsOfRoles(roleIds)) {
      const list = byRole.get(row.roleId) ?? []
      list.push({ slug: row.slug, name: tagName(row.names, locale) })
      byRole.set(row.roleId, list)
    }
    return byRole
  }

  return {
    async listRoles(query: RoleListQuery, viewer: Viewer, requestedLocale: string): Promise<RoleList> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      const known = await allTags()
      const tagIds: number[] = []
      for (const slug of query.tags) {
        const tag = known.find((t) => t.slug === slug)
        if (!tag)
          throw new AppError(400, 'VALIDATION_ERROR', `Unknown tag: ${slug}`, [
            { path: 'tags', message: 'unknown tag', in: 'querystring' },
          ])
        tagIds.push(tag.id)
      }
      const tsQuery = searchQueryFor(query.q)
      const [rows, total] = await Promise.all([
        repo.listPublicRoles({
          sort: query.sort,
          offset: (query.page - 1) * query.pageSize,
          limit: query.pageSize,
          tagIds,
          tsQuery,
        }),
        countMatching({ tagIds, tsQuery }),
      ])
      const totalPages = Math.ceil(total / query.pageSize)
      if (query.page > Math.max(totalPages, 1)) {
        throw new AppError(400, 'VALIDATION_ERROR', `Page ${query.page} is past the last page (${totalPages}).`, [
          { path: 'page', message: `must be at most ${totalPages}`, in: 'querystring', lastPage: totalPages },
        ])
      }
      const tagMap = await tagsByRole(
        rows.map((r) => r.id),
        locale,
      )
      return {
        items: rows.map((row) => summaryOf(row, tagMap.get(row.id) ?? [], viewer)),
        page: query.page,
        pageSize: query.pageSize,
        total,
        totalPages,
      }
    },

    /** A role the viewer may see, or null (unknown, or someone else's private role: same answer). */
    async getRole(publicId: string, viewer: Viewer, requestedLocale: string): Promise<RoleDetail | null> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      const row = await repo.findRoleByPublicId(publicId)
      if (!row) return null
      if (row.visibility === 'private' && (!viewer.userId || viewer.userId !== row.creatorId)) return null
      const summary = summaryOf(row, (await tagsByRole([row.id], locale)).get(row.id) ?? [], viewer)
      const withhold = summary.gated
      return {
        ...summary,
        bannerUrl: withhold ? null : imageUrl(row.bannerImageId),
        introduction: withhold ? '' : row.introduction,
        scenario: withhold ? '' : row.scenario,
        personality: withhold ? '' : row.personality,
        description: withhold ? '' : row.description,
        firstMessage: withhold ? '' : row.firstMessage,
        alternateGreetings: withhold ? [] : row.alternateGreetings,
        exampleDialogue: withhold ? '' : row.exampleDialogue,
        visibility: row.visibility,
        creator: row.creatorUsername ? { username: row.creatorUsername } : null,
        updatedAt: row.updatedAt.toISOString(),
      }
    },

    /**
     * Characters anyone may be shown next to other content (public, never adult): those carrying
     * one of `tagSlugs` (unknown slugs are ignored), topped up with the most popular ones.
     */
    async listRelatedRoles(tagSlugs: string[], limit: number, requestedLocale: string): Promise<RoleSummary[]> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      const known = await allTags()
      const tagIds = known.filter((t) => tagSlugs.includes(t.slug)).map((t) => t.id)
      const rows = tagIds.length > 0 ? await repo.listSafePublicRoles({ tagIds, limit }) : []
      if (rows.length < limit) {
        const seen = new Set(rows.map((r) => r.id))
        const popular = await repo.listSafePublicRoles({ tagIds: [], limit: limit * 2 })
        rows.push(...popular.filter((r) => !seen.has(r.id)).slice(0, limit - rows.length))
      }
      const tagMap = await tagsByRole(
        rows.map((r) => r.id),
        locale,
      )
      const everyone: Viewer = { userId: null, adultConfirmed: false }
      return rows.map((row) => summaryOf(row, tagMap.get(row.id) ?? [], everyone))
    },

    /** Public, non-adult roles for the sitemaps: `offset` and `limit` pick one file's share. */
    async listSitemapRoles(offset: number, limit: number) {
      return repo.listSitemapRoles(offset, limit)
    },

    async sitemapRoleStats() {
      return repo.sitemapRoleStats()
    },

    async listTags(requestedLocale: string): Promise<Tag[]> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      return (await allTags()).map((t) => ({ slug: t.slug, name: tagName(t.names, locale) }))
    },

    /** Whether this viewer has confirmed being 18 or older: their account, else the cookie. */
    async adultConfirmed(userId: string | null, cookieConfirmed: boolean): Promise<boolean> {
      if (cookieConfirmed) return true
      return userId ? repo.userShowsAdultContent(userId) : false
    },

    /** Call after any change to which roles are public, so listing totals are recounted. */
    async invalidateListings() {
      await kv.set(VERSION_KEY, String(Date.now()), 365 * 86_400_000)
    },

    async setAdultPreference(userId: string | null, show: boolean) {
      if (userId) await repo.setUserShowsAdultContent(userId, show)
    },
  }
}

export type CatalogueService = ReturnType<typeof createCatalogueService>
