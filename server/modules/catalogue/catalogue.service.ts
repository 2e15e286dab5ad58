import { LRUCache } from 'lru-cache'
import type {
  RoleDetail,
  RoleList,
  RoleListQuery,
  RoleReadOptions,
  RoleSummary,
  Tag,
  Viewer,
} from '#contracts/catalogue.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import { searchWordList } from '#contracts/search-words.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { throttledRead } from '#server/lib/throttled-read.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import type { TranslationSummaryRow } from '#server/modules/role-texts/role-texts.repo.ts'
import { languageOf, type RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import type { UsersService } from '#server/modules/users/users.service.ts'
import type { CatalogueRepo, ListingFilter, ListingKey, RoleListFilter, RoleSummaryRow } from './catalogue.repo.ts'

const SUMMARY_LENGTH = 180
const TAGS_TTL_MS = 60_000
const MAX_SEARCH_WORDS = 8

/**
 * Listing caches, in the key-value store (shared by every instance when Redis is configured). Each
 * entry is valid for one catalogue version (see `catalogueVersion` in db/schema/roles.ts): the
 * database bumps it in the same transaction as any change to what a listing shows, and every
 * listing request reads it first, so a change is seen by the very next request. One key per
 * listing, overwritten when the version moves on: memory stays bounded however often it does.
 */
export type ListingCacheOptions = {
  /**
   * The first this many roles of each sort, unfiltered and for each single tag, are kept with
   * their tags: pages within them (the first pages, the home page, "similar characters") come
   * from the cache. 0 turns it off.
   */
  headSize?: number
  /** Page anchors every this many roles: a page at a deeper offset seeks from the nearest one. */
  anchorEvery?: number
  /**
   * The catalogue version is read at most this often (ms; 0: on every call) and anew after
   * `forgetListingVersion()`, which the app calls after every write it answers: a page's listings
   * and tags then share one read (server/lib/throttled-read.ts).
   */
  versionMaxAgeMs?: number
}
/**
 * How long a read of the catalogue version serves in production: changes made elsewhere (another
 * instance, a background job) show within this; this instance's own writes at once (ADR 062).
 */
export const CATALOGUE_VERSION_MAX_AGE_MS = 200
const HEAD_SIZE = 100
/** Chat counts do not bump the version (they order nothing), so cached heads show them this late at most. */
const HEAD_TTL_MS = 30_000
const ANCHOR_EVERY = 1000
/** Totals and anchors: exact for their version, kept this long to bound what stale versions hold. */
const LISTING_TTL_MS = 10 * 60_000
/** Listings whose parsed values are kept: the busiest heads, counts and texts (a head of 100 roles parsed is ~150 kB). */
const PARSED_KEEP = 32

/** Freezes a parsed JSON value through and through (it has no cycles). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const item of Object.values(value)) deepFreeze(item)
  }
  return value
}

/** A role of a listing as cached: JSON-safe (the date as ISO text), with the ids of its tags. */
type ListedRow = Omit<RoleSummaryRow, 'createdAt'> & { createdAt: string; tagIds: number[] }

/** The locales a role has its own text in: its source language, then its fresh translations. */
function languagesOf(row: { sourceLanguage: string; translated: string[] }): Locale[] {
  const source = languageOf(row)
  return [source, ...row.translated.filter((l): l is Locale => isLocale(l) && l !== source)]
}

/** A page of a listing with its roles' translations into the visitor's locale (ADR 039). */
type LocalizedPage = { rows: ListedRow[]; translations: TranslationSummaryRow[] }

/** The texts a card shows, in the visitor's locale when the role has a translation there. */
function cardTexts(
  row: { name: string; introduction: string; sourceLanguage: string },
  translation: Pick<TranslationSummaryRow, 'name' | 'introduction'> | undefined,
  locale: Locale,
): { name: string; introduction: string; language: Locale } {
  const source = languageOf(row)
  if (!translation || locale === source) return { name: row.name, introduction: row.introduction, language: source }
  return {
    name: translation.name || row.name,
    introduction: translation.introduction || row.introduction,
    language: locale,
  }
}

/**
 * Turns what a user typed into a prefix-matching full-text query: every word must match the
 * start of a word in the name, tags or introduction. The words are split as the search texts are
 * (`searchWords` in the visitor's locale, so Japanese typed without spaces still gives words);
 * only letters, marks and digits survive, so the result is always valid tsquery syntax.
 */
export function searchQueryFor(text: string | undefined, locale: Locale = DEFAULT_LOCALE): string | undefined {
  const words = searchWordList(text ?? '', locale).slice(0, MAX_SEARCH_WORDS)
  return words.length > 0 ? words.map((w) => `${w}:*`).join(' & ') : undefined
}

/**
 * Summaries made lately, by introduction: the same cards are listed on page after page (the texts
 * are the same strings while their listing is cached, so looking one up is cheap). Least recently
 * used out first; 500: the cards of five listing heads of 100.
 */
const summaries = new LRUCache<string, string>({ max: 500 })

export function summarise(introduction: string): string {
  let summary = summaries.get(introduction)
  if (summary === undefined) {
    summary = summaryOfText(introduction)
    summaries.set(introduction, summary)
  }
  return summary
}

function summaryOfText(introduction: string): string {
  const flat = introduction.replace(/\s+/g, ' ').trim()
  if (flat.length <= SUMMARY_LENGTH) return flat
  const cut = flat.slice(0, SUMMARY_LENGTH)
  const lastSpace = cut.lastIndexOf(' ')
  return `${(lastSpace > SUMMARY_LENGTH * 0.6 ? cut.slice(0, lastSpace) : cut).replace(/[\s,.;:!?-]+$/, '')}…`
}

function tagName(names: Record<string, string>, locale: string): string {
  return names[locale] ?? names[DEFAULT_LOCALE] ?? Object.values(names)[0] ?? ''
}

/** A listed role's tags among `known` (the public ones), named in `locale`, by slug. */
function tagsOfListed(known: { id: number; slug: string; names: Record<string, string> }[], locale: string) {
  const tagById = new Map(known.map((t) => [t.id, t]))
  return (row: { tagIds: number[] }): Tag[] =>
    row.tagIds
      .flatMap((id) => {
        const tag = tagById.get(id)
        return tag ? [{ slug: tag.slug, name: tagName(tag.names, locale) }] : []
      })
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
}

export function createCatalogueService(
  repo: CatalogueRepo,
  kv: KeyValueStore,
  /** The users module keeps the adult-content preference: it is a column of the user's row. */
  users: Pick<UsersService, 'showsAdultContent' | 'setShowsAdultContent'>,
  /** The characters' texts per language (ADR 039). */
  texts: Pick<RoleTextsService, 'localizedSummaries' | 'localizedTexts' | 'overlay' | 'noteShown'>,
  options: ListingCacheOptions = {},
  /** Whether an operator hid a character (ADR 055; the moderation module keeps it). */
  moderation: { isHidden(roleId: number): Promise<boolean> } = { isHidden: async () => false },
  /** The characters an operator features, in their order (ADR 059; the curation module keeps them). */
  featured: { featuredRoleIds(): Promise<number[]> } = { featuredRoleIds: async () => [] },
) {
  const headSize = options.headSize ?? HEAD_SIZE
  const anchorEvery = options.anchorEvery ?? ANCHOR_EVERY
  const catalogueVersion = throttledRead(() => repo.listingVersion(), options.versionMaxAgeMs ?? 0)
  /** Loads in progress, so concurrent misses of one entry run one query. */
  const loading = new Map<string, Promise<unknown>>()

  /**
   * The values last parsed from the store, per key, kept while the store hands back the same text:
   * a page's listing (its head of 100 roles) was parsed anew on every render (~3% of an uncached
   * character list's CPU). Frozen, as they are shared by every request; at most PARSED_KEEP keys.
   */
  const parsed = new LRUCache<string, { raw: string; value: unknown }>({ max: PARSED_KEEP })

  /** The value cached under `key` for this `version`, else `load()`'s (stored as `<version>\n<json>`). */
  async function cachedFor<T>(key: string, version: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const raw = await kv.get(key)
    if (raw !== null) {
      const cut = raw.indexOf('\n')
      if (cut === version.length && raw.startsWith(version)) {
        const known = parsed.get(key)
        if (known?.raw === raw) return known.value as T
        const value = deepFreeze(JSON.parse(raw.slice(cut + 1)) as T)
        parsed.set(key, { raw, value })
        return value
      }
    }
    const flight = `${version}\n${key}`
    let pending = loading.get(flight) as Promise<T> | undefined
    if (!pending) {
      pending = (async () => {
        const value = await load()
        await kv.set(key, `${version}\n${JSON.stringify(value)}`, ttlMs, { cache: true })
        return value
      })().finally(() => loading.delete(flight))
      loading.set(flight, pending)
    }
    return pending
  }

  // A search matches translations into the visitor's locale too: its results depend on the locale.
  const filterKey = (filter: ListingFilter) =>
    `${filter.tagIds.join(',')}:${filter.tsQuery ?? ''}${filter.tsQuery ? `:${filter.locale ?? ''}` : ''}`

  /** Counting every match costs a scan; pages only need it to say "Page X of Y". */
  async function countMatching(filter: ListingFilter, version: string) {
    return cachedFor(`catalogue:count:${filterKey(filter)}`, version, LISTING_TTL_MS, () =>
      repo.countPublicRoles(filter),
    )
  }

  /**
   * One page from the database. From offset `anchorEvery` on, the page starts after the nearest
   * page anchor (a keyset seek) and skips fewer than `anchorEvery` roles, whatever the depth.
   */
  async function pageFromDatabase(filter: RoleListFilter, version: string): Promise<ListedRow[]> {
    let page = filter
    if (filter.offset >= anchorEvery) {
      const listing: ListingFilter = {
        sort: filter.sort,
        tagIds: filter.tagIds,
        tsQuery: filter.tsQuery,
        locale: filter.locale,
      }
      const anchors = await cachedFor<ListingKey[]>(
        `catalogue:anchors:${anchorEvery}:${filter.sort}:${filterKey(filter)}`,
        version,
        LISTING_TTL_MS,
        () => repo.listingAnchors(listing, anchorEvery),
      )
      const nearest = Math.min(Math.floor(filter.offset / anchorEvery), anchors.length)
      const after = anchors[nearest - 1]
      if (after) page = { ...filter, after, offset: filter.offset - nearest * anchorEvery }
    }
    const rows = await repo.listPublicRoles(page)
    return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }))
  }

  /**
   * The translations into `locale` of the roles written in another language: one query, none when
   * every role is in the visitor's language already.
   */
  async function translationsOf(rows: { id: number; sourceLanguage: string }[], locale: Locale) {
    const ids = rows.filter((row) => languageOf(row) !== locale).map((row) => row.id)
    return ids.length > 0 ? texts.localizedSummaries(ids, locale) : []
  }

  /**
   * One page: from the cached head of its listing when it lies within it, else from the database;
   * with its roles' translations into `locale`, cached with the head per version and locale.
   */
  async function pageOf(filter: RoleListFilter, version: string, locale: Locale): Promise<LocalizedPage> {
    const inHead = !filter.tsQuery && filter.tagIds.length <= 1 && filter.offset + filter.limit <= headSize
    if (!inHead) {
      const rows = await pageFromDatabase(filter, version)
      return { rows, translations: await translationsOf(rows, locale) }
    }
    const listing = `${filter.sort}:${filter.tagIds.join(',')}`
    const head = await cachedFor(`catalogue:head:${listing}`, version, HEAD_TTL_MS, () =>
      pageFromDatabase({ ...filter, offset: 0, limit: headSize }, version),
    )
    const translations = await cachedFor(`catalogue:head-texts:${locale}:${listing}`, version, LISTING_TTL_MS, () =>
      translationsOf(head, locale),
    )
    return { rows: head.slice(filter.offset, filter.offset + filter.limit), translations }
  }

  let tagCache: { at: number; version: string | null; rows: Awaited<ReturnType<CatalogueRepo['allTags']>> } | null =
    null
  /** Every tag: exactly those of `version` when given, else at most a minute old. */
  async function allTags(version?: string) {
    const fresh =
      tagCache !== null &&
      (version === undefined ? Date.now() - tagCache.at <= TAGS_TTL_MS : tagCache.version === version)
    if (!fresh || !tagCache) tagCache = { at: Date.now(), version: version ?? null, rows: await repo.allTags() }
    return tagCache.rows
  }

  /** A card: `shown` are the texts in the language given (the role's own, or its translation). */
  function summaryOf(
    row: Omit<RoleSummaryRow, 'createdAt'> & { createdAt: Date | string },
    roleTags: Tag[],
    viewer: Viewer,
    shown: { name: string; introduction: string; language: Locale },
  ): RoleSummary {
    const gated = row.isAdult && !viewer.adultConfirmed
    return {
      roleId: row.publicId,
      name: shown.name,
      avatarUrl: imageUrl(gated ? row.avatarBlurredImageId : row.avatarImageId),
      tags: roleTags,
      summary: gated ? '' : summarise(shown.introduction),
      chatCount: row.chatCount,
      popularity: row.popularity,
      rating: { average: Math.round(row.ratingAverage * 10) / 10, count: row.ratingCount },
      createdAt: new Date(row.createdAt).toISOString(),
      isAdult: row.isAdult,
      gated,
      language: shown.language,
    }
  }

  /** Cards of `rows` in `locale`, with the translations given (`translations`, any order). */
  function localizedCards<R extends Omit<RoleSummaryRow, 'createdAt'> & { createdAt: Date | string }>(
    rows: R[],
    translations: TranslationSummaryRow[],
    locale: Locale,
    viewer: Viewer,
    tagsOf: (row: R) => Tag[],
  ): RoleSummary[] {
    const byRole = new Map(translations.map((t) => [t.roleId, t]))
    return rows.map((row) => summaryOf(row, tagsOf(row), viewer, cardTexts(row, byRole.get(row.id), locale)))
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
    /** The catalogue version: the render cache (ADR 062) keys pages by it, as these listings do. */
    listingVersion: (): string | Promise<string> => catalogueVersion.get(),

    /** After a write this instance answered: the next read asks the database for the version again. */
    forgetListingVersion: () => catalogueVersion.forget(),

    async listRoles(query: RoleListQuery, viewer: Viewer, requestedLocale: string): Promise<RoleList> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      // First the version, then the data: what is read next is at least as new as the version.
      const version = await catalogueVersion.get()
      const known = await allTags(version)
      const tagIds: number[] = []
      for (const slug of query.tags) {
        const tag = known.find((t) => t.slug === slug)
        if (!tag)
          throw new AppError(400, 'VALIDATION_ERROR', `Unknown tag: ${slug}`, [
            { path: 'tags', message: 'unknown tag', in: 'querystring' },
          ])
        tagIds.push(tag.id)
      }
      const tsQuery = searchQueryFor(query.q, locale)
      const filter: ListingFilter = { sort: query.sort, tagIds, tsQuery, locale: tsQuery ? locale : undefined }
      const page: RoleListFilter = { ...filter, offset: (query.page - 1) * query.pageSize, limit: query.pageSize }
      let rows: Promise<LocalizedPage> | undefined
      let total: number
      if (filter.tsQuery && tagIds.length === 0) {
        // Walking the order's index tests (offset + limit) × everything / matches roles on
        // average; collecting the matches reads each of them: the smaller wins.
        const [matches, everything] = await Promise.all([
          countMatching(filter, version),
          countMatching({ sort: filter.sort, tagIds: [] }, version),
        ])
        page.searchPath = (page.offset + page.limit) * everything < matches * matches ? 'index' : 'matches'
        total = matches
      } else {
        rows = pageOf(page, version, locale)
        // A page past the end is refused below; this keeps its query from failing unobserved.
        rows.catch(() => {})
        total = await countMatching(filter, version)
      }
      const totalPages = Math.ceil(total / query.pageSize)
      if (query.page > Math.max(totalPages, 1)) {
        throw new AppError(400, 'VALIDATION_ERROR', `Page ${query.page} is past the last page (${totalPages}).`, [
          { path: 'page', message: `must be at most ${totalPages}`, in: 'querystring', lastPage: totalPages },
        ])
      }
      const listed = await (rows ?? pageOf(page, version, locale))
      return {
        items: localizedCards(listed.rows, listed.translations, locale, viewer, tagsOfListed(known, locale)),
        page: query.page,
        pageSize: query.pageSize,
        total,
        totalPages,
      }
    },

    /**
     * A role the viewer may see, or null (unknown, or someone else's private role: same answer). Its
     * texts are the locale's translation when it has one, unless `original` asks for its own; a
     * public role shown in a locale without a fresh translation asks for one (`noteShown`).
     */
    async getRole(
      publicId: string,
      viewer: Viewer,
      requestedLocale: string,
      options: RoleReadOptions = {},
    ): Promise<RoleDetail | null> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      const row = await repo.findRoleByPublicId(publicId)
      if (!row) return null
      const mayRead = options.operator || (viewer.userId !== null && viewer.userId === row.creatorId)
      if (row.visibility === 'private' && !mayRead) return null
      const [roleTags, translations] = await Promise.all([
        tagsByRole([row.id], locale),
        languageOf(row) === locale ? new Map() : texts.localizedTexts([row.id], locale),
      ])
      const localized = texts.overlay(row, translations.get(row.id), locale)
      if (!options.operator) texts.noteShown(row, locale, localized)
      const shown = options.original ? texts.overlay(row, null, locale) : localized
      const summary = summaryOf(row, roleTags.get(row.id) ?? [], viewer, { ...shown.texts, language: shown.language })
      const withhold = summary.gated
      // Only a private role can be hidden, and only its creator sees it private: ask only then.
      const hidden = row.visibility === 'private' && (await moderation.isHidden(row.id))
      return {
        ...summary,
        bannerUrl: withhold ? null : imageUrl(row.bannerImageId),
        introduction: withhold ? '' : shown.texts.introduction,
        scenario: withhold ? '' : shown.texts.scenario,
        personality: withhold ? '' : row.personality,
        description: withhold ? '' : row.description,
        firstMessage: withhold ? '' : shown.texts.firstMessage,
        alternateGreetings: withhold ? [] : shown.texts.alternateGreetings,
        exampleDialogue: withhold ? '' : row.exampleDialogue,
        visibility: row.visibility,
        ...(hidden ? { hiddenByOperator: true as const } : {}),
        creator: row.creatorUsername ? { username: row.creatorUsername } : null,
        updatedAt: row.updatedAt.toISOString(),
        sourceLanguage: languageOf(row),
        translation: localized.translation,
        languages: languagesOf(row),
      }
    },

    /**
     * The characters an operator features (ADR 059), in their order: only public ones (a hidden
     * character is private, so it drops out), adult ones only for a viewer who confirmed their age;
     * cards in the visitor's locale. Cached per catalogue version like the listings' heads (the
     * featured list bumps the version with every change).
     */
    async listFeatured(viewer: Viewer, requestedLocale: string): Promise<RoleSummary[]> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      const version = await catalogueVersion.get()
      const rows = await cachedFor('catalogue:featured', version, HEAD_TTL_MS, async () => {
        const ids = await featured.featuredRoleIds()
        const found = new Map((await repo.publicRolesByIds(ids)).map((row) => [row.id, row]))
        return ids.flatMap((id): ListedRow[] => {
          const row = found.get(id)
          return row ? [{ ...row, createdAt: row.createdAt.toISOString() }] : []
        })
      })
      const [known, translations] = await Promise.all([
        allTags(version),
        cachedFor(`catalogue:featured-texts:${locale}`, version, LISTING_TTL_MS, () => translationsOf(rows, locale)),
      ])
      const shown = rows.filter((row) => !row.isAdult || viewer.adultConfirmed)
      return localizedCards(shown, translations, locale, viewer, tagsOfListed(known, locale))
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
      const [tagMap, translations] = await Promise.all([
        tagsByRole(
          rows.map((r) => r.id),
          locale,
        ),
        translationsOf(rows, locale),
      ])
      const everyone: Viewer = { userId: null, adultConfirmed: false }
      return localizedCards(rows, translations, locale, everyone, (row) => tagMap.get(row.id) ?? [])
    },

    /**
     * Public, non-adult roles for the sitemaps, with the locales that have their own text (source
     * language, fresh translations): `offset` and `limit` pick one file's share; with `locale`,
     * only the roles that have their own text in it (ADR 039).
     */
    async listSitemapRoles(offset: number, limit: number, locale?: Locale) {
      const rows = await repo.listSitemapRoles(offset, limit, locale)
      return rows.map((row) => ({ publicId: row.publicId, updatedAt: row.updatedAt, locales: languagesOf(row) }))
    },

    async sitemapRoleStats() {
      return repo.sitemapRoleStats()
    },

    /**
     * The tags to choose from: those a public character carries. A tag only private characters
     * carry (anyone can make one by typing a name) is nobody else's business and no advertisement.
     */
    async listTags(requestedLocale: string): Promise<Tag[]> {
      const locale = isLocale(requestedLocale) ? requestedLocale : DEFAULT_LOCALE
      // Exactly as of the catalogue's version: a character made private takes its tags along now.
      return (await allTags(await catalogueVersion.get()))
        .filter((t) => t.onPublicRole)
        .map((t) => ({ slug: t.slug, name: tagName(t.names, locale) }))
    },

    /** Whether this viewer has confirmed being 18 or older: their account, else the cookie. */
    async adultConfirmed(userId: string | null, cookieConfirmed: boolean): Promise<boolean> {
      if (cookieConfirmed) return true
      return userId ? users.showsAdultContent(userId) : false
    },

    /**
     * Drops every cached listing. Database triggers already do it for every change a listing shows,
     * in the transaction of the change; this is for callers that want to be explicit.
     */
    async invalidateListings() {
      await repo.bumpListingVersion()
    },

    async setAdultPreference(userId: string | null, show: boolean) {
      if (userId) await users.setShowsAdultContent(userId, show)
    },
  }
}

export type CatalogueService = ReturnType<typeof createCatalogueService>
