import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleDetail, RoleList } from '#contracts/catalogue.ts'
import { createAvatarImage, createRole, createTags, ratingsFor } from '#tests/factories/catalogue.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

const DAY = 86_400_000

describe('catalogue API', () => {
  let t: TestApp
  let owner: Awaited<ReturnType<TestApp['login']>>
  let stranger: Awaited<ReturnType<TestApp['login']>>
  const ids: Record<string, string> = {}
  let gatedAvatar: { id: string; blurredId: string | null }

  const list = async (query: string, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/roles${query}`, headers })
    return { res, body: res.json() as { data: RoleList; error?: string; details?: unknown } }
  }

  beforeAll(async () => {
    t = await buildTestApp()
    const db = t.database.db
    owner = await t.login()
    stranger = await t.login()
    await createTags(db, [
      { slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } },
      { slug: 'romance', names: { en: 'Romance', fr: 'Romance' } },
      { slug: 'sci-fi', names: { en: 'Sci-Fi', fr: 'Science-fiction' } },
      { slug: 'filler', names: { en: 'Filler', fr: 'Remplissage' } },
    ])
    gatedAvatar = await createAvatarImage(db, { gated: true, color: '#ff0000' })
    const now = Date.now()
    ids.aria = await createRole(db, {
      name: 'Aria Stormwind',
      tagSlugs: ['fantasy', 'romance'],
      popularity: 1000,
      createdAt: new Date(now - 30 * DAY),
      introduction: 'A wandering bard who collects forbidden songs.',
    })
    ids.zed = await createRole(db, {
      name: 'Zed Nova',
      tagSlugs: ['sci-fi'],
      popularity: 500,
      createdAt: new Date(now - DAY),
      introduction: 'Pilot of the last starship leaving a dying Earth.',
    })
    ids.velvet = await createRole(db, {
      name: 'Velvet Noir',
      tagSlugs: ['romance'],
      isAdult: true,
      popularity: 800,
      createdAt: new Date(now - 10 * DAY),
      introduction: 'A singer in a smoky club with secrets to keep.',
      scenario: 'Midnight at the club.',
      avatarImageId: gatedAvatar.id,
      avatarBlurredImageId: gatedAvatar.blurredId,
    })
    ids.secret = await createRole(db, {
      name: 'Secret Draft',
      tagSlugs: ['fantasy'],
      visibility: 'private',
      creatorId: owner.user.id,
      popularity: 5000,
    })
    for (let i = 0; i < 25; i++) {
      await createRole(db, {
        name: `Filler ${String(i).padStart(2, '0')}`,
        tagSlugs: ['filler'],
        popularity: i,
        createdAt: new Date(now - (100 + i) * DAY),
      })
    }
    const raters = await Promise.all([1, 2, 3].map(() => createUser(db)))
    await ratingsFor(
      db,
      ids.zed,
      raters.map((r) => ({ userId: r.id, score: 5 })),
    )
    await ratingsFor(db, ids.aria, [
      { userId: raters[0]?.id ?? '', score: 4 },
      { userId: raters[1]?.id ?? '', score: 3 },
    ])
  })
  afterAll(() => t.close())

  it('lists public roles by popularity with totals, never private ones', async () => {
    const { res, body } = await list('')
    expect(res.statusCode).toBe(200)
    const { items, total, totalPages, page, pageSize } = body.data
    expect(total).toBe(28)
    expect(pageSize).toBe(24)
    expect(totalPages).toBe(2)
    expect(page).toBe(1)
    expect(items.slice(0, 3).map((r) => r.name)).toEqual(['Aria Stormwind', 'Velvet Noir', 'Zed Nova'])
    expect(items.some((r) => r.name === 'Secret Draft')).toBe(false)
    expect(items[0]?.tags).toEqual([
      { slug: 'fantasy', name: 'Fantasy' },
      { slug: 'romance', name: 'Romance' },
    ])
  })

  it('sorts by newest and by rating', async () => {
    const newest = (await list('?sort=newest&pageSize=3')).body.data.items.map((r) => r.name)
    expect(newest).toEqual(['Zed Nova', 'Velvet Noir', 'Aria Stormwind'])
    const rated = (await list('?sort=rating&pageSize=2')).body.data.items
    expect(rated.map((r) => [r.name, r.rating])).toEqual([
      ['Zed Nova', { average: 5, count: 3 }],
      ['Aria Stormwind', { average: 3.5, count: 2 }],
    ])
  })

  it('pages without overlap or gaps', async () => {
    const first = (await list('?pageSize=10&page=1')).body.data
    const third = (await list('?pageSize=10&page=3')).body.data
    expect(first.totalPages).toBe(3)
    expect(third.items).toHaveLength(8)
    const all = []
    for (let page = 1; page <= 3; page++) all.push(...(await list(`?pageSize=10&page=${page}`)).body.data.items)
    expect(new Set(all.map((r) => r.roleId)).size).toBe(28)
    const single = (await list('?pageSize=1&page=28')).body.data
    expect(single.items).toHaveLength(1)
  })

  it('refuses page 0, a page past the end and an oversized page with a clear 400', async () => {
    for (const query of ['?page=0', '?page=-1', '?page=abc', '?pageSize=1000', '?pageSize=0', '?page=4&pageSize=10']) {
      const { res, body } = await list(query)
      expect(res.statusCode, query).toBe(400)
      expect(body.error, query).toBe('VALIDATION_ERROR')
      expect(body.details, query).toBeTruthy()
    }
    expect((await list('?page=4&pageSize=10')).body).toMatchObject({ message: 'Page 4 is past the last page (3).' })
  })

  it('filters by one tag, or by several (all must match)', async () => {
    const romance = (await list('?tags=romance')).body.data.items.map((r) => r.name)
    expect(romance).toEqual(['Aria Stormwind', 'Velvet Noir'])
    const both = (await list('?tags=romance&tags=fantasy')).body.data
    expect(both.items.map((r) => r.name)).toEqual(['Aria Stormwind'])
    expect(both.total).toBe(1)
    const commaForm = (await list('?tags=fantasy,romance')).body.data.items.map((r) => r.name)
    expect(commaForm).toEqual(['Aria Stormwind'])
    const none = (await list('?tags=sci-fi,romance')).body.data
    expect(none).toMatchObject({ items: [], total: 0, totalPages: 0 })
  })

  it('keeps tag-filtered orders in step with changes to a role (database triggers)', async () => {
    const before = (await list('?tags=romance&sort=rating')).body.data.items.map((r) => r.name)
    expect(before).toEqual(['Aria Stormwind', 'Velvet Noir'])
    const fans = await Promise.all([1, 2, 3].map(() => createUser(t.database.db)))
    await ratingsFor(
      t.database.db,
      ids.velvet ?? '',
      fans.map((f) => ({ userId: f.id, score: 5 })),
    )
    const after = (await list('?tags=romance&sort=rating')).body.data.items.map((r) => r.name)
    expect(after).toEqual(['Velvet Noir', 'Aria Stormwind'])
    // Undo, for the tests that follow.
    await ratingsFor(
      t.database.db,
      ids.velvet ?? '',
      fans.map((f) => ({ userId: f.id, score: 1 })),
    )
    const newest = (await list('?tags=romance&sort=newest')).body.data.items.map((r) => r.name)
    expect(newest).toEqual(['Velvet Noir', 'Aria Stormwind'])
  })

  it('answers an unknown tag with a 400 naming it', async () => {
    const { res, body } = await list('?tags=no-such-tag')
    expect(res.statusCode).toBe(400)
    expect(body).toMatchObject({ error: 'VALIDATION_ERROR', message: 'Unknown tag: no-such-tag' })
  })

  it('searches names, tag names in any language and introductions, by word prefix', async () => {
    expect((await list('?q=aria')).body.data.items.map((r) => r.name)).toEqual(['Aria Stormwind'])
    expect((await list('?q=storm')).body.data.items.map((r) => r.name)).toEqual(['Aria Stormwind'])
    expect((await list('?q=science')).body.data.items.map((r) => r.name)).toEqual(['Zed Nova'])
    expect((await list('?q=starship%20earth')).body.data.items.map((r) => r.name)).toEqual(['Zed Nova'])
    expect((await list('?q=bard&tags=fantasy')).body.data.items.map((r) => r.name)).toEqual(['Aria Stormwind'])
    expect((await list('?q=nothing-like-this-anywhere')).body.data.total).toBe(0)
  })

  it('treats hostile search text as plain words', async () => {
    for (const q of ["'); DROP TABLE roles; --", '!!!:*&|<->', '\\x00', '(((', '"', '%', '🙂', 'a'.repeat(100)]) {
      const { res } = await list(`?q=${encodeURIComponent(q)}`)
      expect(res.statusCode, q).toBe(200)
    }
    expect((await list(`?q=${'a'.repeat(101)}`)).res.statusCode).toBe(400)
    expect((await list('')).body.data.total).toBe(28)
  })

  it('blurs adult roles and withholds their text until the viewer confirms their age', async () => {
    const gated = (await list('?tags=romance')).body.data.items.find((r) => r.name === 'Velvet Noir')
    expect(gated).toMatchObject({ isAdult: true, gated: true, summary: '' })
    expect(gated?.avatarUrl).toBe(`/api/public/images/${gatedAvatar.blurredId}`)

    const detail = await t.app.inject({ method: 'GET', url: `/api/role?roleId=${ids.velvet}` })
    expect(detail.statusCode).toBe(200)
    const locked = detail.json().data as RoleDetail
    expect(locked).toMatchObject({ gated: true, introduction: '', scenario: '', firstMessage: '', bannerUrl: null })
    expect(JSON.stringify(locked)).not.toContain('smoky club')

    const confirmed = await t.app.inject({
      method: 'GET',
      url: `/api/role?roleId=${ids.velvet}`,
      headers: { cookie: 'adult_ok=1' },
    })
    expect(confirmed.json().data).toMatchObject({
      gated: false,
      scenario: 'Midnight at the club.',
      avatarUrl: `/api/public/images/${gatedAvatar.id}`,
    })
  })

  it('remembers the age confirmation in a cookie, and in the account when signed in', async () => {
    const visitor = await t.app.inject({
      method: 'POST',
      url: '/api/public/age-confirmation',
      payload: { confirmed: true },
    })
    expect(visitor.statusCode).toBe(200)
    const cookie = visitor.cookies.find((c) => c.name === 'adult_ok')
    expect(cookie).toMatchObject({ value: '1', httpOnly: true, sameSite: 'Lax', path: '/' })
    expect(cookie?.maxAge).toBe(365 * 24 * 60 * 60)

    const user = await t.login()
    await t.injectWithLogin({ method: 'POST', url: '/api/public/age-confirmation', payload: { confirmed: true } }, user)
    // The account setting alone (a new device, no cookie) unlocks the role.
    const seen = await t.injectWithLogin({ method: 'GET', url: `/api/role?roleId=${ids.velvet}` }, user)
    expect(seen.json().data.gated).toBe(false)

    const off = await t.injectWithLogin(
      { method: 'POST', url: '/api/public/age-confirmation', payload: { confirmed: false } },
      user,
    )
    expect(off.cookies.find((c) => c.name === 'adult_ok')?.value).toBe('')
    const again = await t.injectWithLogin({ method: 'GET', url: `/api/role?roleId=${ids.velvet}` }, user)
    expect(again.json().data.gated).toBe(true)

    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/public/age-confirmation',
      payload: { confirmed: 'yes' },
    })
    expect(bad.statusCode).toBe(400)
  })

  it('shows a private role only to its creator; to anyone else it does not exist', async () => {
    const url = `/api/role?roleId=${ids.secret}`
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404)
    expect((await t.injectWithLogin({ method: 'GET', url }, stranger)).statusCode).toBe(404)
    const mine = await t.injectWithLogin({ method: 'GET', url }, owner)
    expect(mine.statusCode).toBe(200)
    expect(mine.json().data).toMatchObject({ name: 'Secret Draft', visibility: 'private' })
    expect(mine.headers['cache-control']).toBe('private, no-cache')
  })

  it('returns a role with every field of the character page', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/role?roleId=${ids.aria}&locale=fr` })
    const role = res.json().data as RoleDetail
    expect(role).toMatchObject({
      roleId: ids.aria,
      name: 'Aria Stormwind',
      introduction: 'A wandering bard who collects forbidden songs.',
      tags: [
        { slug: 'fantasy', name: 'Fantastique' },
        { slug: 'romance', name: 'Romance' },
      ],
      rating: { average: 3.5, count: 2 },
      visibility: 'public',
      isAdult: false,
    })
    expect(Date.parse(role.createdAt)).toBeLessThan(Date.now())
    expect((await t.app.inject({ method: 'GET', url: '/api/role?roleId=nope' })).statusCode).toBe(404)
    expect((await t.app.inject({ method: 'GET', url: '/api/role' })).statusCode).toBe(400)
  })

  it('serves tags in the requested language, cacheable with an ETag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/tags?locale=fr' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.tags).toContainEqual({ slug: 'sci-fi', name: 'Science-fiction' })
    expect(res.headers['cache-control']).toContain('public')
    const etag = res.headers.etag
    expect(etag).toBeTruthy()
    const again = await t.app.inject({
      method: 'GET',
      url: '/api/tags?locale=fr',
      headers: { 'if-none-match': String(etag) },
    })
    expect(again.statusCode).toBe(304)
    const unknownLocale = await t.app.inject({ method: 'GET', url: '/api/tags?locale=xx' })
    expect(unknownLocale.json().data.tags).toContainEqual({ slug: 'sci-fi', name: 'Sci-Fi' })
  })

  it('lets shared caches keep anonymous listings, but not personal ones', async () => {
    const anonymous = (await list('')).res
    expect(anonymous.headers['cache-control']).toContain('public')
    expect(anonymous.headers.vary).toContain('Cookie')
    const personal = (await list('', { cookie: 'adult_ok=1' })).res
    expect(personal.headers['cache-control']).toBe('private, no-cache')
  })

  it('sends adult images only to viewers who confirmed their age', async () => {
    const original = `/api/public/images/${gatedAvatar.id}`
    expect((await t.app.inject({ method: 'GET', url: original })).statusCode).toBe(403)
    const allowed = await t.app.inject({ method: 'GET', url: original, headers: { cookie: 'adult_ok=1' } })
    expect(allowed.statusCode).toBe(200)
    expect(allowed.headers['content-type']).toBe('image/webp')
    expect(allowed.headers['cache-control']).toContain('private')
    const blurred = await t.app.inject({ method: 'GET', url: `/api/public/images/${gatedAvatar.blurredId}` })
    expect(blurred.statusCode).toBe(200)
    expect(blurred.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const cached = await t.app.inject({
      method: 'GET',
      url: `/api/public/images/${gatedAvatar.blurredId}`,
      headers: { 'if-none-match': String(blurred.headers.etag) },
    })
    expect(cached.statusCode).toBe(304)
    expect((await t.app.inject({ method: 'GET', url: '/api/public/images/not-a-uuid' })).statusCode).toBe(400)
  })

  it('keeps a private character’s pictures out of shared caches', async () => {
    const db = t.database.db
    const avatar = await createAvatarImage(db, { color: '#00ff00' })
    const banner = await createAvatarImage(db, { color: '#0000ff' })
    const shown = await createAvatarImage(db, { color: '#ffff00' })
    await createRole(db, {
      name: 'Private Pictures',
      visibility: 'private',
      creatorId: owner.user.id,
      avatarImageId: avatar.id,
      bannerImageId: banner.id,
    })
    // The same picture on a private and a public character: the public one may share it.
    await createRole(db, { name: 'Shown Twice A', visibility: 'private', avatarImageId: shown.id })
    await createRole(db, { name: 'Shown Twice B', avatarImageId: shown.id })
    const orphan = await createAvatarImage(db, { color: '#00ffff' })
    for (const id of [avatar.id, banner.id, orphan.id]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/public/images/${id}` })
      expect(res.statusCode).toBe(200)
      expect(res.headers['cache-control']).toBe('private, no-cache')
      const again = await t.app.inject({
        method: 'GET',
        url: `/api/public/images/${id}`,
        headers: { 'if-none-match': String(res.headers.etag) },
      })
      expect(again.statusCode).toBe(304)
    }
    const res = await t.app.inject({ method: 'GET', url: `/api/public/images/${shown.id}` })
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })
})
