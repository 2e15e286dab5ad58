import { type SQL, sql } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROLE_SORTS, type RoleSort, type Viewer } from '#contracts/catalogue.ts'
import type { DatabaseHandle } from '#db/client.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { createRoleTextsRepo } from '#server/modules/role-texts/role-texts.repo.ts'
import { createRoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { createUsersRepo } from '#server/modules/users/users.repo.ts'
import { createUsersService } from '#server/modules/users/users.service.ts'
import { createTags } from '#tests/factories/catalogue.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { createCatalogueRepo } from './catalogue.repo.ts'
import { createCatalogueService } from './catalogue.service.ts'

// Page anchors and the listing caches against the plain offset query, written here independently
// of the repo: over random catalogues (many ties in every sort key, microsecond timestamps, `real`
// ratings, private roles, tags, a search word), random pages of every sort, tag filter and search
// must list exactly the same roles, before and after random changes made straight in the database.

const TAGS = ['alpha', 'beta', 'gamma'] as const
const everyone: Viewer = { userId: null, adultConfirmed: false }
const ORDER: Record<RoleSort, string> = {
  popularity: 'popularity desc, id desc',
  newest: 'created_at desc, id desc',
  rating: 'rating_average desc, rating_count desc, id desc',
}

const roleArb = fc.record({
  popularity: fc.integer({ min: 0, max: 5 }),
  ageDays: fc.integer({ min: 0, max: 3 }),
  micros: fc.integer({ min: 0, max: 2 }),
  ratingAverage: fc.constantFrom(0, 1, 3.3333333, 3.5, 4.6666665, 5),
  ratingCount: fc.integer({ min: 0, max: 2 }),
  isPublic: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
  tags: fc.subarray([...TAGS]),
  lantern: fc.boolean(),
})
type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never
type RoleSpec = ValueOf<typeof roleArb>

const queryArb = fc.record({
  sort: fc.constantFrom(...ROLE_SORTS),
  tags: fc.subarray([...TAGS], { maxLength: 2 }),
  search: fc.boolean(),
  pageSize: fc.integer({ min: 1, max: 12 }),
  where: fc.double({ min: 0, max: 1, noNaN: true }),
})
type Query = ValueOf<typeof queryArb>

const changeArb = fc.oneof(
  fc.record({ kind: fc.constant('popularity' as const), pick: fc.nat(), value: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('rating' as const), pick: fc.nat(), value: fc.constantFrom(0, 2.5, 3.5, 5) }),
  fc.record({ kind: fc.constant('visibility' as const), pick: fc.nat(), value: fc.constant(0) }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), value: fc.constant(0) }),
  fc.record({ kind: fc.constant('insert' as const), pick: fc.nat(), value: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('tag' as const), pick: fc.nat(), value: fc.nat({ max: TAGS.length - 1 }) }),
)

describe('role listing: page anchors and caches', () => {
  let database: DatabaseHandle
  const rows = async <T>(query: SQL) => (await database.db.execute(query)) as unknown as { rows: T[] }
  let tagIds: Record<string, number> = {}

  beforeAll(async () => {
    database = await openTestDatabase()
    await createTags(
      database.db,
      TAGS.map((slug) => ({ slug, names: { en: slug[0]?.toUpperCase() + slug.slice(1) } })),
    )
    const found = await rows<{ id: number; slug: string }>(sql`select id, slug from tags`)
    tagIds = Object.fromEntries(found.rows.map((t) => [t.slug, Number(t.id)]))
  })
  afterAll(() => database.close())

  async function load(specs: RoleSpec[]) {
    await database.db.execute(sql`delete from roles`)
    const base = Date.UTC(2026, 0, 10)
    await createCatalogueRepo(database.db).insertRoles(
      specs.map((spec, i) => ({
        publicId: `p${i}`,
        name: `Role ${i}`,
        tagSlugs: spec.tags,
        visibility: spec.isPublic ? 'public' : 'private',
        popularity: spec.popularity,
        createdAt: new Date(base - spec.ageDays * 86_400_000),
        introduction: spec.lantern ? 'Carries a lantern.' : 'Plain words.',
      })),
    )
    if (specs.length === 0) return
    // Microseconds (beyond what a JS Date holds) and `real` ratings: anchors must keep them exact.
    const values = sql.join(
      specs.map((s, i) => sql`(${`p${i}`}, ${s.ratingAverage}::real, ${s.ratingCount}::int, ${s.micros}::int)`),
      sql`, `,
    )
    await database.db.execute(sql`
      update roles r set rating_average = v.average, rating_count = v.count,
        created_at = r.created_at + v.micros * interval '1 microsecond'
        from (values ${values}) as v(public_id, average, count, micros) where r.public_id = v.public_id`)
  }

  /** The plain offset query, straight SQL. */
  function conditions(query: Query): SQL {
    const parts: SQL[] = [sql`visibility = 'public'`]
    for (const slug of query.tags) {
      parts.push(sql`id in (select role_id from role_tags where tag_id = ${tagIds[slug]})`)
    }
    if (query.search) parts.push(sql`search @@ to_tsquery('simple', 'lantern:*')`)
    return sql.join(parts, sql` and `)
  }
  async function expected(query: Query, page: number) {
    const found = await rows<{ public_id: string }>(
      sql`select public_id from roles where ${conditions(query)} order by ${sql.raw(ORDER[query.sort])} limit ${query.pageSize} offset ${(page - 1) * query.pageSize}`,
    )
    return found.rows.map((r) => r.public_id)
  }
  async function count(query: Query) {
    const found = await rows<{ n: number }>(sql`select count(*)::int as n from roles where ${conditions(query)}`)
    return Number(found.rows[0]?.n ?? 0)
  }

  async function change(step: ValueOf<typeof changeArb>) {
    const ids = (await rows<{ id: number }>(sql`select id from roles order by id`)).rows.map((r) => Number(r.id))
    const id = ids[step.pick % Math.max(ids.length, 1)]
    if (step.kind === 'insert') {
      await createCatalogueRepo(database.db).insertRoles([
        { publicId: `n${Date.now()}${step.pick}`, name: 'New', tagSlugs: ['alpha'], popularity: step.value },
      ])
      return
    }
    if (id === undefined) return
    const statements: Record<Exclude<typeof step.kind, 'insert'>, SQL> = {
      popularity: sql`update roles set popularity = ${step.value} where id = ${id}`,
      rating: sql`update roles set rating_average = ${step.value}, rating_count = rating_count + 1 where id = ${id}`,
      visibility: sql`update roles set visibility = case when visibility = 'public' then 'private'::role_visibility else 'public' end where id = ${id}`,
      delete: sql`delete from roles where id = ${id}`,
      tag: sql`insert into role_tags (role_id, tag_id) values (${id}, ${tagIds[TAGS[step.value] ?? 'alpha']}) on conflict do nothing`,
    }
    await database.db.execute(statements[step.kind])
  }

  it('lists exactly what the plain offset query lists, for any page, sort, tag filter and search, across changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(roleArb, { minLength: 5, maxLength: 150 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0, 7, 100),
        fc.array(queryArb, { minLength: 8, maxLength: 16 }),
        fc.array(changeArb, { minLength: 1, maxLength: 3 }),
        async (specs, anchorEvery, headSize, queries, changes) => {
          await load(specs)
          const kv = openKeyValueStore(undefined)
          const repo = createCatalogueRepo(database.db)
          const users = createUsersService(createUsersRepo(database.db))
          const texts = createRoleTextsService({ repo: createRoleTextsRepo(database.db) })
          const catalogue = createCatalogueService(repo, kv, users, texts, { anchorEvery, headSize })
          try {
            for (const round of [0, 1]) {
              if (round === 1) for (const step of changes) await change(step)
              for (const query of queries) {
                const total = await count(query)
                const totalPages = Math.ceil(total / query.pageSize)
                const page = 1 + Math.floor(query.where * Math.max(totalPages - 1, 0))
                const list = await catalogue.listRoles(
                  {
                    page,
                    pageSize: query.pageSize,
                    sort: query.sort,
                    tags: query.tags,
                    q: query.search ? 'lantern' : undefined,
                  },
                  everyone,
                  'en',
                )
                const want = await expected(query, page)
                expect({ total: list.total, ids: list.items.map((r) => r.roleId) }).toEqual({ total, ids: want })
                if (query.search && query.tags.length === 0) {
                  // Both ways a search may find its page give the same answer.
                  for (const searchPath of ['index', 'matches'] as const) {
                    const direct = await repo.listPublicRoles({
                      sort: query.sort,
                      tagIds: [],
                      tsQuery: 'lantern:*',
                      offset: (page - 1) * query.pageSize,
                      limit: query.pageSize,
                      searchPath,
                    })
                    expect(direct.map((r) => r.publicId)).toEqual(want)
                  }
                }
              }
            }
          } finally {
            await kv.close()
          }
        },
      ),
      { numRuns: 30 },
    )
  })

  it('reads anchors back exactly: microsecond timestamps and real ratings', async () => {
    await load(
      Array.from({ length: 9 }, (_, i) => ({
        popularity: 1,
        ageDays: 0,
        micros: i % 3,
        ratingAverage: 3.3333333,
        ratingCount: 1,
        isPublic: true,
        tags: [],
        lantern: false,
      })),
    )
    const repo = createCatalogueRepo(database.db)
    const newest = await repo.listingAnchors({ sort: 'newest', tagIds: [] }, 2)
    expect(newest).toHaveLength(4)
    expect(newest[0]?.[0]).toMatch(/:00\.000002/)
    for (const sort of ROLE_SORTS) {
      const anchors = await repo.listingAnchors({ sort, tagIds: [] }, 3)
      for (const [i, after] of anchors.entries()) {
        const rest = await repo.listPublicRoles({ sort, tagIds: [], offset: 0, limit: 100, after })
        const all = await repo.listPublicRoles({ sort, tagIds: [], offset: 0, limit: 100 })
        expect(rest.map((r) => r.id)).toEqual(all.slice((i + 1) * 3).map((r) => r.id))
      }
    }
  })
})
