import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import type { RoleTranslationList } from '#contracts/role-texts.ts'
import { createCatalogueRepo } from '#server/modules/catalogue/catalogue.repo.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { sourceHashOf } from './role-texts.service.ts'

type Session = Awaited<ReturnType<TestApp['login']>>

const jaTexts = {
  name: '航路の魔女セラフィナ',
  introduction: '嵐の山脈を越える郵便飛竜の乗り手。',
  scenario: '{{user}}は密書を抱えて飛竜の背にいる。',
  firstMessage: 'しっかりつかまって、{{user}}！',
  alternateGreetings: ['また来たの？'],
}

/** A multipart body as a browser's FormData sends it. */
async function multipart(fields: Record<string, string | string[]>) {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) form.append(key, v)
  }
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

describe('character translations: save, list, remove, stale (ADR 039)', () => {
  let t: TestApp
  let owner: Session
  let stranger: Session
  let roleId: string
  let privateId: string

  beforeAll(async () => {
    t = await buildTestApp()
    owner = await t.login()
    stranger = await t.login()
    roleId = await createRole(t.database.db, {
      name: 'Seraphine',
      creatorId: owner.user.id,
      introduction: 'A courier who flies wyverns.',
      scenario: '{{user}} carries a sealed letter.',
      firstMessage: 'Hold on tight, {{user}}!',
      alternateGreetings: ['Back again?'],
    })
    privateId = await createRole(t.database.db, { name: 'Hidden', creatorId: owner.user.id, visibility: 'private' })
  })
  afterAll(() => t?.close())

  const post = (url: string, payload: unknown, session: Session | null = owner) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: payload as Record<string, unknown>,
      headers: session ? { authorization: `Bearer ${session.token}` } : {},
    })
  const save = (payload: unknown, session: Session | null = owner) =>
    post('/api/role/translations/save', payload, session)
  const list = async (id = roleId) => {
    const res = await post('/api/role/translations', { roleId: id })
    expect(res.statusCode).toBe(200)
    return res.json().data as RoleTranslationList
  }

  it("saves the creator's translation and lists it with the source language", async () => {
    const res = await save({ roleId, locale: 'ja', texts: jaTexts })
    expect(res.statusCode).toBe(200)
    const data = res.json().data as RoleTranslationList
    expect(data.roleId).toBe(roleId)
    expect(data.sourceLanguage).toBe('en')
    expect(data.translations).toHaveLength(1)
    expect(data.translations[0]).toMatchObject({ locale: 'ja', origin: 'author', stale: false, texts: jaTexts })
    expect(await list()).toEqual(data)
  })

  it('replaces a translation on a second save; empty texts and no name mean the source', async () => {
    await save({
      roleId,
      locale: 'fr',
      texts: { name: '', introduction: 'Une coursière.', scenario: '', firstMessage: '' },
    })
    const fr = (await list()).translations.find((x) => x.locale === 'fr')
    expect(fr?.texts).toEqual({
      name: null,
      introduction: 'Une coursière.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    })
    await save({
      roleId,
      locale: 'fr',
      texts: { introduction: 'Une messagère des airs.', scenario: 'Nuit.', firstMessage: 'Accrochez-vous !' },
    })
    const again = (await list()).translations.filter((x) => x.locale === 'fr')
    expect(again).toHaveLength(1)
    expect(again[0]?.texts.introduction).toBe('Une messagère des airs.')
  })

  it('refuses the source language itself, texts over the source limits, and a translation with no text', async () => {
    const own = await save({ roleId, locale: 'en', texts: jaTexts })
    expect(own.statusCode).toBe(400)
    expect(own.json().details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'locale', code: 'source_language' })]),
    )

    const long = await save({
      roleId,
      locale: 'de',
      texts: { ...jaTexts, introduction: '話'.repeat(CHARACTER_LIMITS.introduction + 1) },
    })
    expect(long.statusCode).toBe(400)
    expect(long.json().details).toEqual([
      expect.objectContaining({ path: 'texts.introduction', code: 'too_long', limit: CHARACTER_LIMITS.introduction }),
    ])
    // Code points, as the source fields: 5,000 emoji (10,000 UTF-16 units) are within the limit.
    const emoji = await save({ roleId, locale: 'de', texts: { ...jaTexts, introduction: '🐉'.repeat(5000) } })
    expect(emoji.statusCode).toBe(200)

    const empty = await save({ roleId, locale: 'es', texts: { introduction: ' ', scenario: '', firstMessage: '' } })
    expect(empty.statusCode).toBe(400)
    expect(empty.json().details).toEqual([expect.objectContaining({ path: 'texts', code: 'required' })])

    const badLocale = await save({ roleId, locale: 'xx', texts: jaTexts })
    expect(badLocale.statusCode).toBe(400)
    expect((await list()).translations.map((x) => x.locale)).not.toContain('es')
  })

  it('answers strangers as the other role routes do: 401, 403 on a public role, 404 on a private one', async () => {
    expect((await save({ roleId, locale: 'ko', texts: jaTexts }, null)).statusCode).toBe(401)
    expect((await post('/api/role/translations', { roleId }, null)).statusCode).toBe(401)
    expect((await save({ roleId, locale: 'ko', texts: jaTexts }, stranger)).statusCode).toBe(403)
    expect((await post('/api/role/translations', { roleId }, stranger)).statusCode).toBe(403)
    expect((await post('/api/role/translations/remove', { roleId, locale: 'ja' }, stranger)).statusCode).toBe(403)
    expect((await save({ roleId: privateId, locale: 'ko', texts: jaTexts }, stranger)).statusCode).toBe(404)
    expect((await save({ roleId: 'no-such-role', locale: 'ko', texts: jaTexts })).statusCode).toBe(404)
    expect((await list()).translations.map((x) => x.locale)).not.toContain('ko')
    // The owner's private character is theirs to translate.
    expect((await save({ roleId: privateId, locale: 'ko', texts: jaTexts })).statusCode).toBe(200)
  })

  it('a saved or removed translation drops the cached listings (the catalogue version moves)', async () => {
    const repo = createCatalogueRepo(t.database.db)
    const before = BigInt(await repo.listingVersion())
    await save({ roleId, locale: 'it', texts: { introduction: 'Una corriera.' } })
    const saved = BigInt(await repo.listingVersion())
    expect(saved > before).toBe(true)
    const removed = await post('/api/role/translations/remove', { roleId, locale: 'it' })
    expect(removed.statusCode).toBe(200)
    expect((removed.json().data as RoleTranslationList).translations.map((x) => x.locale)).not.toContain('it')
    expect(BigInt(await repo.listingVersion()) > saved).toBe(true)
  })

  it('marks translations stale when an edit changes the source texts, and tells the listeners', async () => {
    const changed: string[] = []
    const stop = t.app.services.roleTexts.listen({ sourceChanged: (id) => void changed.push(id) })
    const form = (introduction: string, personality: string) =>
      multipart({
        name: 'Seraphine',
        introduction,
        scenario: '{{user}} carries a sealed letter.',
        personality,
        firstMessage: 'Hold on tight, {{user}}!',
        alternateGreetings: ['Back again?'],
        visibility: 'public',
        isAdult: 'false',
      })
    const put = async (body: Awaited<ReturnType<typeof form>>) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/roles/${roleId}`,
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${owner.token}` },
      })
    try {
      // A model-facing field only: the translations still match the source.
      expect((await put(await form('A courier who flies wyverns.', 'Brisk.'))).statusCode).toBe(200)
      expect((await list()).translations.every((x) => !x.stale)).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(changed).toEqual([])

      expect((await put(await form('A courier who flies wyverns over the Thornteeth.', 'Brisk.'))).statusCode).toBe(200)
      const after = await list()
      expect(after.translations.length).toBeGreaterThan(0)
      expect(after.translations.every((x) => x.stale)).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(changed).toEqual([roleId])

      // Saved again by its author, a translation is fresh (made from the current source).
      await save({ roleId, locale: 'ja', texts: jaTexts })
      expect((await list()).translations.find((x) => x.locale === 'ja')?.stale).toBe(false)
    } finally {
      stop()
    }
  })

  it("a new character's texts are in the creator's interface language unless the form says; an edit keeps it", async () => {
    const fields = { name: 'Aiko', introduction: '東京の喫茶店の店主。', visibility: 'public', isAdult: 'false' }
    const create = async (extra: Record<string, string>, query: string, cookie?: string) => {
      const body = await multipart({ ...fields, ...extra })
      return t.app.inject({
        method: 'POST',
        url: `/api/addRole${query}`,
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${owner.token}`, ...(cookie ? { cookie } : {}) },
      })
    }
    const byQuery = await create({}, '?locale=ja')
    expect(byQuery.json().data.sourceLanguage).toBe('ja')
    expect((await create({}, '', 'lang=ko')).json().data.sourceLanguage).toBe('ko')
    expect((await create({ sourceLanguage: 'zh-tw' }, '?locale=ja')).json().data.sourceLanguage).toBe('zh-tw')
    const bad = await create({ sourceLanguage: 'klingon' }, '')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().details).toEqual([expect.objectContaining({ path: 'sourceLanguage', code: 'invalid' })])

    const id = byQuery.json().data.roleId as string
    const edit = async (extra: Record<string, string>) => {
      const body = await multipart({ ...fields, ...extra })
      return t.app.inject({
        method: 'PUT',
        url: `/api/roles/${id}?locale=fr`,
        payload: body.payload,
        headers: { ...body.headers, authorization: `Bearer ${owner.token}` },
      })
    }
    expect((await edit({})).json().data.sourceLanguage).toBe('ja')
    expect((await edit({ sourceLanguage: 'en' })).json().data.sourceLanguage).toBe('en')
  })

  it("a machine translation never replaces an author's, and is stale at once when made from an older source", async () => {
    const texts = t.app.services.roleTexts
    const source = await texts.sourceOf(roleId)
    if (!source) throw new Error('role missing')
    expect(source.sourceHash).toBe(sourceHashOf(source))
    const machine = {
      name: null,
      introduction: 'Машинный перевод.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    }
    expect(await texts.saveMachineTranslation(roleId, 'ja', machine, source.sourceHash)).toBe(false)
    expect((await list()).translations.find((x) => x.locale === 'ja')?.origin).toBe('author')
    expect(await texts.saveMachineTranslation(roleId, 'ru', machine, source.sourceHash)).toBe(true)
    expect((await list()).translations.find((x) => x.locale === 'ru')).toMatchObject({
      origin: 'machine',
      stale: false,
    })
    expect(await texts.saveMachineTranslation(roleId, 'pl', machine, 'an older hash')).toBe(true)
    expect((await list()).translations.find((x) => x.locale === 'pl')).toMatchObject({ origin: 'machine', stale: true })
    // Into the role's own language: never.
    expect(await texts.saveMachineTranslation(roleId, 'en', machine, source.sourceHash)).toBe(false)
  })
})
