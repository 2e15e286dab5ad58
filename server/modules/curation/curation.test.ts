import { sql } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAdminCli } from '#server/modules/staff/admin-cli.ts'
import { CONSOLE_TOKEN_HEADER } from '#server/modules/staff/console-sessions.ts'
import { totpCode } from '#server/modules/staff/totp.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { multipart } from '#tests/helpers/card-forms.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Tag moderation and featured characters (ADR 059) through the API, on PGlite (or PostgreSQL with
// TEST_DATABASE_URL and TEST_REDIS_URL): each action, then what the public sees.

type Person = { id: string; email: string; token: string; console?: string }

let t: TestApp
let moderator: Person
let admin: Person

beforeAll(async () => {
  t = await buildTestApp()
  moderator = await staffMember('moderator')
  admin = await staffMember('admin')
})
afterAll(async () => t?.close())

function call(who: Person | null, request: InjectOptions) {
  const headers: Record<string, string> = { ...(request.headers as Record<string, string>) }
  if (who) headers.authorization = `Bearer ${who.token}`
  if (who?.console) headers[CONSOLE_TOKEN_HEADER] = who.console
  return t.app.inject({ ...request, headers })
}

async function staffMember(role: 'admin' | 'moderator'): Promise<Person> {
  const { user, token } = await t.login()
  const who: Person = { id: user.id, email: user.email, token }
  const silent = { log: () => {}, error: () => {} }
  expect(await runAdminCli(['grant', who.email, '--role', role], t.app.services.staff, silent)).toBe(0)
  const setup = await call(who, { method: 'POST', url: '/api/admin/2fa/setup' })
  const secret = setup.json().data.secret as string
  const enable = await call(who, {
    method: 'POST',
    url: '/api/admin/2fa/enable',
    payload: { code: totpCode(secret, Date.now()) },
  })
  who.console = enable.json().data.consoleToken
  return who
}

const post = (who: Person, url: string, payload: object) => call(who, { method: 'POST', url, payload })
const get = (url: string, who: Person | null = null) => call(who, { method: 'GET', url })

/** The slugs of the public tag list. */
const publicTags = async (locale = 'en') =>
  ((await get(`/api/tags?locale=${locale}`)).json().data.tags as { slug: string; name: string }[]).map((x) => x.slug)
/** The ids of the characters a listing query shows. */
const listed = async (query: string) => {
  const res = await get(`/api/roles?${query}`)
  return { status: res.statusCode, ids: ((res.json().data?.items ?? []) as { roleId: string }[]).map((r) => r.roleId) }
}
const pageTags = async (roleId: string) =>
  ((await get(`/api/role?roleId=${roleId}`)).json().data.tags as { slug: string; name: string }[]).map((x) => x.slug)
const sitemapText = async () => (await get('/api/sitemap/pages?pageSize=5000')).body
const auditOf = async (targetId: string) =>
  (await t.app.services.auditLog.page({ targetId }, 1, 20)).items.map((r) => [r.action, r.actorId, r.note])
const unique = () => Math.random().toString(36).slice(2, 8)

describe('tag moderation', () => {
  it('lists tags with their maker, count and state for a moderator', async () => {
    const slug = `lst-${unique()}`
    await createTags(t.database.db, [{ slug, names: { en: 'Listed', fr: 'Listé' } }])
    await createRole(t.database.db, { name: 'Lister', tagSlugs: [slug] })
    const res = await get(`/api/admin/tags?q=${slug}`, moderator)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.items).toEqual([
      {
        slug,
        names: { en: 'Listed', fr: 'Listé' },
        userMade: false,
        creator: null,
        characterCount: 1,
        state: 'visible',
      },
    ])
    // By a name in any language too.
    expect(
      (await get('/api/admin/tags?q=list%C3%A9', moderator)).json().data.items.map((x: { slug: string }) => x.slug),
    ).toContain(slug)
  })

  it('rename: the new names show in listings, on the page and in search; the slug stays', async () => {
    const slug = `ren-${unique()}`
    await createTags(t.database.db, [{ slug, names: { en: 'Old Name' } }])
    const roleId = await createRole(t.database.db, { name: 'Renata', tagSlugs: [slug] })
    const res = await post(moderator, `/api/admin/tags/${slug}/rename`, {
      names: { en: 'Skyrunner', fr: 'Coureur du ciel' },
      note: 'clearer name',
    })
    expect(res.statusCode).toBe(200)
    const cards = (await get(`/api/roles?tags=${slug}&locale=fr`)).json().data.items
    expect(cards.map((c: { roleId: string }) => c.roleId)).toEqual([roleId])
    expect(cards[0].tags).toEqual([{ slug, name: 'Coureur du ciel' }])
    expect((await get(`/api/tags?locale=en`)).json().data.tags).toContainEqual({ slug, name: 'Skyrunner' })
    // Search finds the character by the new name, no longer by the old one.
    expect((await listed('q=skyrunner')).ids).toContain(roleId)
    expect((await listed('q=old%20name')).ids).not.toContain(roleId)
    expect(await auditOf(slug)).toEqual([['tag.rename', moderator.id, 'clearer name']])
    // Onto another tag's name: refused (merge is the way).
    const other = `oth-${unique()}`
    await createTags(t.database.db, [{ slug: other, names: { en: 'Occupied' } }])
    const clash = await post(moderator, `/api/admin/tags/${slug}/rename`, { names: { en: 'occupied' }, note: 'x' })
    expect([clash.statusCode, clash.json().details]).toEqual([409, { reason: 'name_taken', slug: other }])
  })

  it('merge: every character carrying A carries B exactly once, A is gone and its filter is an unknown tag', async () => {
    const a = `ma-${unique()}`
    const b = `mb-${unique()}`
    await createTags(t.database.db, [
      { slug: a, names: { en: 'Merge From' } },
      { slug: b, names: { en: 'Merge Into' } },
    ])
    const onlyA = await createRole(t.database.db, { name: 'Only A', tagSlugs: [a], popularity: 30 })
    const both = await createRole(t.database.db, { name: 'Both', tagSlugs: [a, b], popularity: 20 })
    const onlyB = await createRole(t.database.db, { name: 'Only B', tagSlugs: [b], popularity: 10 })
    const res = await post(moderator, `/api/admin/tags/${a}/merge`, { into: b, note: 'duplicates' })
    expect([res.statusCode, res.json().data]).toEqual([200, { carried: 2, moved: 1 }])
    // The triggers' listing keys are right on the new row: the tag's listing orders by popularity.
    expect((await listed(`tags=${b}`)).ids).toEqual([onlyA, both, onlyB])
    const rows = await t.database.db.execute(
      sql`select r.public_id, rt.popularity, rt.is_public from role_tags rt join roles r on r.id = rt.role_id join tags t on t.id = rt.tag_id where t.slug = ${b} order by rt.popularity desc`,
    )
    expect((rows as unknown as { rows: unknown[] }).rows).toEqual([
      { public_id: onlyA, popularity: 30, is_public: true },
      { public_id: both, popularity: 20, is_public: true },
      { public_id: onlyB, popularity: 10, is_public: true },
    ])
    expect(await pageTags(both)).toEqual([b])
    expect((await listed(`tags=${a}`)).status).toBe(400)
    expect(await publicTags()).not.toContain(a)
    expect((await get(`/api/admin/tags?q=${a}`, moderator)).json().data.items).toEqual([])
    expect(await auditOf(a)).toEqual([['tag.merge', moderator.id, 'duplicates']])
    // Into itself or an unknown tag: refused.
    expect((await post(moderator, `/api/admin/tags/${b}/merge`, { into: b, note: 'x' })).statusCode).toBe(400)
    expect((await post(moderator, `/api/admin/tags/${b}/merge`, { into: 'no-such-tag', note: 'x' })).statusCode).toBe(
      404,
    )
  })

  it('hide: the tag is gone from the tag list, filters, cards, the page, search and sitemaps; unhide brings it back', async () => {
    const slug = `hid-${unique()}`
    await createTags(t.database.db, [{ slug, names: { en: 'Quillshadow' } }])
    const roleId = await createRole(t.database.db, { name: 'Mara', tagSlugs: [slug] })
    expect(await publicTags()).toContain(slug)
    expect((await listed('q=quillshadow')).ids).toEqual([roleId])
    expect(await pageTags(roleId)).toEqual([slug])

    const hide = await post(moderator, `/api/admin/tags/${slug}/hide`, { note: 'slur' })
    expect([hide.statusCode, hide.json().data]).toEqual([200, { changed: true }])
    expect(await publicTags()).not.toContain(slug)
    expect((await listed(`tags=${slug}`)).status).toBe(400)
    expect((await listed('q=quillshadow')).ids).toEqual([])
    expect(await pageTags(roleId)).toEqual([])
    const card = (await get('/api/roles?q=mara&pageSize=50'))
      .json()
      .data.items.find((c: { roleId: string }) => c.roleId === roleId)
    expect(card.tags).toEqual([])
    expect(await sitemapText()).not.toContain(slug)
    expect((await get(`/api/admin/tags?q=${slug}`, moderator)).json().data.items[0]).toMatchObject({
      state: 'hidden',
      characterCount: 1,
    })
    // Again: nothing changes, nothing is audited.
    expect((await post(moderator, `/api/admin/tags/${slug}/hide`, { note: 'again' })).json().data).toEqual({
      changed: false,
    })

    expect((await post(moderator, `/api/admin/tags/${slug}/unhide`, { note: 'appeal' })).json().data).toEqual({
      changed: true,
    })
    expect(await publicTags()).toContain(slug)
    expect((await listed('q=quillshadow')).ids).toEqual([roleId])
    expect(await pageTags(roleId)).toEqual([slug])
    expect(await auditOf(slug)).toEqual([
      ['tag.unhide', moderator.id, 'appeal'],
      ['tag.hide', moderator.id, 'slur'],
    ])
    // A note is required.
    expect((await post(moderator, `/api/admin/tags/${slug}/hide`, { note: '  ' })).statusCode).toBe(400)
  })

  it('policy on: a new user-made tag is pending, shown nowhere, until a moderator approves it', async () => {
    const policy = await post(admin, '/api/admin/tags/policy', { userTagsStartHidden: true, note: 'spam wave' })
    expect([policy.statusCode, policy.json().data]).toEqual([200, { userTagsStartHidden: true }])
    expect(
      (await post(moderator, '/api/admin/tags/policy', { userTagsStartHidden: false, note: 'x' })).statusCode,
    ).toBe(403)
    expect((await get('/api/admin/tags/policy', moderator)).json().data).toEqual({ userTagsStartHidden: true })
    try {
      const maker = await t.login()
      const name = `Zephyrine${unique()}`
      const body = await multipart({
        name: 'Tagged By User',
        introduction: 'A character.',
        firstMessage: 'Hello.',
        tags: [name],
        visibility: 'public',
        isAdult: 'false',
      })
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/addRole',
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${maker.token}` },
      })
      expect(created.statusCode).toBe(200)
      const roleId = created.json().data.roleId as string
      const tag = (await get(`/api/admin/tags?q=${name}`, moderator)).json().data.items[0]
      expect(tag).toMatchObject({ state: 'pending', userMade: true, creator: { id: maker.user.id }, characterCount: 1 })
      expect(await publicTags()).not.toContain(tag.slug)
      expect(await pageTags(roleId)).toEqual([])
      expect((await listed(`q=${name}`)).ids).toEqual([])
      // Its maker still sees it on their character.
      const own = await t.app.inject({
        method: 'GET',
        url: '/api/my/roles',
        headers: { authorization: `Bearer ${maker.token}` },
      })
      expect(JSON.stringify(own.json().data.roles)).toContain(tag.slug)

      expect((await post(moderator, `/api/admin/tags/${tag.slug}/approve`, { note: 'fine' })).json().data).toEqual({
        changed: true,
      })
      expect(await publicTags()).toContain(tag.slug)
      expect(await pageTags(roleId)).toEqual([tag.slug])
      expect((await listed(`q=${name}`)).ids).toEqual([roleId])
      // Approving a visible tag is refused; unhiding one too.
      expect((await post(moderator, `/api/admin/tags/${tag.slug}/unhide`, { note: 'x' })).json().data).toEqual({
        changed: false,
      })
    } finally {
      await post(admin, '/api/admin/tags/policy', { userTagsStartHidden: false, note: 'wave over' })
    }
    expect(await auditOf('policy:user-tags-start-hidden')).toEqual([
      ['tag.policy', admin.id, 'wave over'],
      ['tag.policy', admin.id, 'spam wave'],
    ])
    // Policy off: a new user-made tag is visible at once.
    const maker = await t.login()
    const name = `Openly${unique()}`
    const body = await multipart({
      name: 'Open Tags',
      introduction: 'x',
      firstMessage: 'Hi.',
      tags: [name],
      visibility: 'public',
      isAdult: 'false',
    })
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/addRole',
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${maker.token}` },
    })
    expect(created.statusCode).toBe(200)
    expect((await get(`/api/admin/tags?q=${name}`, moderator)).json().data.items[0]).toMatchObject({ state: 'visible' })
  })
})

describe('featured characters', () => {
  const featuredIds = async (cookie?: string) =>
    (
      (await t.app.inject({ method: 'GET', url: '/api/featured?locale=fr', headers: cookie ? { cookie } : {} })).json()
        .data.items as { roleId: string; name: string }[]
    ).map((r) => r.roleId)

  it('features, orders and removes; the home API shows them in order, translated, adult ones only when confirmed; a hidden one drops out', async () => {
    const creator = await t.login()
    const first = await createRole(t.database.db, { name: 'Feat One', creatorId: creator.user.id })
    await t.app.services.roleTexts.saveAuthorTranslation(creator.user.id, first, 'fr', {
      name: 'Premier en vedette',
      introduction: 'En français.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    })
    const second = await createRole(t.database.db, { name: 'Feat Two' })
    const adult = await createRole(t.database.db, { name: 'Feat Adult', isAdult: true })
    const privateOne = await createRole(t.database.db, { name: 'Feat Private', visibility: 'private' })
    for (const roleId of [first, second, adult]) {
      expect((await post(moderator, '/api/admin/featured', { roleId, note: 'staff pick' })).statusCode).toBe(200)
    }
    const refused = await post(moderator, '/api/admin/featured', { roleId: privateOne, note: 'x' })
    expect([refused.statusCode, refused.json().details]).toEqual([409, { reason: 'not_public' }])
    expect(await featuredIds()).toEqual([first, second])
    expect(await featuredIds('adult_ok=1')).toEqual([first, second, adult])
    const cards = (await get('/api/featured?locale=fr')).json().data.items
    expect(cards[0]).toMatchObject({ roleId: first, name: 'Premier en vedette', language: 'fr' })
    expect(cards[1]).toMatchObject({ roleId: second, name: 'Feat Two', language: 'en' })

    const order = await post(moderator, '/api/admin/featured/order', {
      roleIds: [adult, second, first],
      note: 'fresh first',
    })
    expect(order.json().data.items.map((x: { roleId: string }) => x.roleId)).toEqual([adult, second, first])
    expect(await featuredIds()).toEqual([second, first])
    // An order that does not name exactly the list is refused.
    expect((await post(moderator, '/api/admin/featured/order', { roleIds: [first], note: 'x' })).statusCode).toBe(409)

    // Hidden by moderation: it drops out of the home page at once, stays on the console's list.
    await t.app.services.moderation.hideCharacter(second, { actorId: moderator.id, note: 'reported' })
    expect(await featuredIds()).toEqual([first])
    const consoleList = (await get('/api/admin/featured', moderator)).json().data.items
    expect(consoleList.find((x: { roleId: string }) => x.roleId === second)).toMatchObject({ visibility: 'private' })

    expect((await post(moderator, '/api/admin/featured/remove', { roleId: first, note: 'rotation' })).statusCode).toBe(
      200,
    )
    expect(await featuredIds()).toEqual([])
    expect(await auditOf(first)).toEqual([
      ['character.unfeature', moderator.id, 'rotation'],
      ['character.feature', moderator.id, 'staff pick'],
    ])
    expect((await auditOf('featured'))[0]).toEqual(['character.feature-order', moderator.id, 'fresh first'])
  })
})
