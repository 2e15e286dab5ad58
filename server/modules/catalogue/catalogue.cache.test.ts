import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { RoleList } from '#contracts/catalogue.ts'
import { createRole, createTags, ratingsFor } from '#tests/factories/catalogue.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createCatalogueRepo } from './catalogue.repo.ts'

// The listing caches (heads of listings, totals, page anchors) live in the key-value store under
// the catalogue version, which database triggers bump with every change a listing shows. Every
// change here is made straight in the database, as a script or another module would, and must be
// seen by the very next request, though the listing was just cached.

describe('role listing caches', () => {
  let t: TestApp
  const ids: Record<string, string> = {}

  const list = async (query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/roles${query}` })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as RoleList
  }
  const names = async (query = '') => (await list(query)).items.map((r) => r.name)
  const execute = (query: ReturnType<typeof sql>) => t.database.db.execute(query)
  const version = () => createCatalogueRepo(t.database.db).listingVersion()

  beforeAll(async () => {
    t = await buildTestApp()
    await createTags(t.database.db, [
      { slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } },
      { slug: 'noir', names: { en: 'Noir', fr: 'Noir' } },
    ])
    ids.ash = await createRole(t.database.db, { name: 'Ash', tagSlugs: ['fantasy'], popularity: 30 })
    ids.bo = await createRole(t.database.db, { name: 'Bo', tagSlugs: ['fantasy', 'noir'], popularity: 20 })
    ids.cy = await createRole(t.database.db, { name: 'Cy', tagSlugs: ['noir'], popularity: 10 })
  })
  afterAll(() => t.close())

  it('caches a listing and serves it again unchanged', async () => {
    const first = await list()
    expect(first.items.map((r) => r.name)).toEqual(['Ash', 'Bo', 'Cy'])
    expect(await list()).toEqual(first)
  })

  it('parses a cached listing once while the store holds the same text', async () => {
    await list('?sort=newest')
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const heads = () => parse.mock.calls.filter(([text]) => typeof text === 'string' && text.includes('"publicId"'))
      const first = await list('?sort=newest')
      expect(await list('?sort=newest')).toEqual(first)
      expect(await list('?sort=newest')).toEqual(first)
      // The stored head was parsed by the first of the three requests only.
      expect(heads()).toHaveLength(1)
    } finally {
      parse.mockRestore()
    }
  })

  it('shows a new role on the next request', async () => {
    expect(await names()).toEqual(['Ash', 'Bo', 'Cy'])
    expect(await names('?tags=fantasy')).toEqual(['Ash', 'Bo'])
    ids.dee = await createRole(t.database.db, { name: 'Dee', tagSlugs: ['fantasy'], popularity: 25 })
    expect(await names()).toEqual(['Ash', 'Dee', 'Bo', 'Cy'])
    expect(await names('?tags=fantasy')).toEqual(['Ash', 'Dee', 'Bo'])
    expect((await list()).total).toBe(4)
  })

  it('follows edits of names, introductions, adult flags and listing keys', async () => {
    await names('?sort=popularity')
    await execute(
      sql`update roles set name = 'Ashley', introduction = 'Now with a story.' where public_id = ${ids.ash}`,
    )
    const ash = (await list()).items[0]
    expect(ash).toMatchObject({ name: 'Ashley', summary: 'Now with a story.', gated: false })

    await execute(sql`update roles set is_adult = true where public_id = ${ids.ash}`)
    expect((await list()).items[0]).toMatchObject({ name: 'Ashley', isAdult: true, gated: true, summary: '' })
    await execute(sql`update roles set is_adult = false where public_id = ${ids.ash}`)

    await execute(sql`update roles set popularity = 100 where public_id = ${ids.cy}`)
    expect(await names()).toEqual(['Cy', 'Ashley', 'Dee', 'Bo'])
    expect(await names('?tags=noir')).toEqual(['Cy', 'Bo'])

    await names('?sort=rating')
    const raters = await Promise.all([1, 2].map(() => createUser(t.database.db)))
    await ratingsFor(
      t.database.db,
      ids.bo ?? '',
      raters.map((r) => ({ userId: r.id, score: 5 })),
    )
    expect((await names('?sort=rating'))[0]).toBe('Bo')
  })

  it('drops a role made private or deleted, and brings it back when published again', async () => {
    expect(await names()).toContain('Dee')
    await execute(sql`update roles set visibility = 'private' where public_id = ${ids.dee}`)
    expect(await names()).not.toContain('Dee')
    expect(await names('?tags=fantasy')).not.toContain('Dee')
    expect((await list()).total).toBe(3)
    await execute(sql`update roles set visibility = 'public' where public_id = ${ids.dee}`)
    expect(await names('?tags=fantasy')).toContain('Dee')
    await execute(sql`delete from roles where public_id = ${ids.dee}`)
    expect(await names()).not.toContain('Dee')
    expect(await names('?tags=fantasy')).not.toContain('Dee')
    expect((await list()).total).toBe(3)
  })

  it('follows tags given, taken and renamed', async () => {
    expect(await names('?tags=noir')).toEqual(['Cy', 'Bo'])
    await execute(sql`delete from role_tags where role_id = (select id from roles where public_id = ${ids.bo})
      and tag_id = (select id from tags where slug = 'noir')`)
    expect(await names('?tags=noir')).toEqual(['Cy'])
    const fr = await list('?locale=fr')
    expect(fr.items.find((r) => r.name === 'Cy')?.tags).toEqual([{ slug: 'noir', name: 'Noir' }])
    await createTags(t.database.db, [{ slug: 'noir', names: { en: 'Noir', fr: 'Polar' } }])
    const renamed = await list('?locale=fr')
    expect(renamed.items.find((r) => r.name === 'Cy')?.tags).toEqual([{ slug: 'noir', name: 'Polar' }])
  })

  it('sees changes made through the API too: the character editor creates, edits and deletes', async () => {
    const owner = await t.login()
    const send = async (method: 'POST' | 'PUT' | 'DELETE', url: string, fields?: Record<string, string>) => {
      const form = new FormData()
      for (const [key, value] of Object.entries(fields ?? {})) form.append(key, value)
      const body = new Response(form)
      const res = await t.injectWithLogin(
        fields
          ? {
              method,
              url,
              payload: Buffer.from(await body.arrayBuffer()),
              headers: { 'content-type': body.headers.get('content-type') ?? '' },
            }
          : { method, url },
        owner,
      )
      expect(res.statusCode, res.body).toBe(200)
      return res
    }
    const fields = {
      name: 'Editor Made',
      introduction: 'Made in the editor.',
      firstMessage: 'Hi.',
      tags: 'fantasy',
      visibility: 'public',
      isAdult: 'false',
    }
    expect(await names('?sort=newest')).not.toContain('Editor Made')
    const publicId = (await send('POST', '/api/addRole', fields)).json().data.roleId as string
    expect((await names('?sort=newest'))[0]).toBe('Editor Made')
    expect(await names('?sort=newest&tags=fantasy')).toContain('Editor Made')
    await send('PUT', `/api/roles/${publicId}`, { ...fields, name: 'Editor Renamed' })
    expect((await names('?sort=newest'))[0]).toBe('Editor Renamed')
    await send('PUT', `/api/roles/${publicId}`, { ...fields, name: 'Editor Renamed', visibility: 'private' })
    expect(await names('?sort=newest')).not.toContain('Editor Renamed')
    await send('PUT', `/api/roles/${publicId}`, { ...fields, name: 'Editor Renamed' })
    expect(await names('?sort=newest')).toContain('Editor Renamed')
    await send('DELETE', `/api/roles/${publicId}`)
    expect(await names('?sort=newest')).not.toContain('Editor Renamed')
    expect(await names('?sort=newest&tags=fantasy')).not.toContain('Editor Renamed')
  })

  it('does not drop cached listings for a new chat (chat counts order nothing)', async () => {
    const before = await version()
    await execute(sql`update roles set chat_count = chat_count + 1 where public_id = ${ids.ash}`)
    expect(await version()).toBe(before)
    await execute(sql`update roles set popularity = popularity + 1 where public_id = ${ids.ash}`)
    expect(await version()).not.toBe(before)
  })

  it('answers anonymous listings with a shared cache lifetime and an ETag (304 when unchanged)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/roles?sort=newest' })
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300')
    const etag = String(res.headers.etag)
    expect(etag).toMatch(/^W\//)
    const again = await t.app.inject({
      method: 'GET',
      url: '/api/roles?sort=newest',
      headers: { 'if-none-match': etag },
    })
    expect(again.statusCode).toBe(304)
    await createRole(t.database.db, { name: 'Fresh', popularity: 1 })
    const changed = await t.app.inject({
      method: 'GET',
      url: '/api/roles?sort=newest',
      headers: { 'if-none-match': etag },
    })
    expect(changed.statusCode).toBe(200)
    expect(changed.json().data.items[0].name).toBe('Fresh')
  })
})
