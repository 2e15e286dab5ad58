import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleDetail, RoleList, RoleSummary } from '#contracts/catalogue.ts'
import type { Locale } from '#contracts/locales.ts'
import { createCatalogueRepo } from '#server/modules/catalogue/catalogue.repo.ts'
import { searchQueryFor } from '#server/modules/catalogue/catalogue.service.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 20 / ADR 039: listings, search and the character page in the visitor's language.

const seraphineJa = {
  name: '飛竜便のセラフィナ',
  introduction: '嵐の山脈を越えて手紙を運ぶ郵便飛竜の乗り手。どんな天気でも遅れたことはない。',
  scenario: '{{user}}は封印された手紙を抱え、飛竜の背に乗っている。',
  firstMessage: 'しっかりつかまって、{{user}}！',
  alternateGreetings: ['', 'また来たの？'],
}

describe("catalogue in the visitor's language", () => {
  let t: TestApp
  let owner: Awaited<ReturnType<TestApp['login']>>
  let seraphine: string
  let bram: string
  let aiko: string
  let hidden: string

  const list = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/roles${query}` })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as RoleList
  }
  const detail = async (id: string, locale: Locale, extra = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/role?roleId=${id}&locale=${locale}${extra}` })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as RoleDetail
  }
  const card = (items: RoleSummary[], id: string) => items.find((r) => r.roleId === id)

  beforeAll(async () => {
    t = await buildTestApp()
    const db = t.database.db
    owner = await t.login()
    await createTags(db, [{ slug: 'fantasy', names: { en: 'Fantasy', ja: 'ファンタジー' } }])
    seraphine = await createRole(db, {
      name: 'Seraphine',
      creatorId: owner.user.id,
      tagSlugs: ['fantasy'],
      popularity: 300,
      introduction: 'A courier who flies wyverns over the mountains.',
      scenario: '{{user}} carries a sealed letter.',
      firstMessage: 'Hold on tight, {{user}}!',
      alternateGreetings: ['Back again?', 'Mind the tail.'],
    })
    bram = await createRole(db, {
      name: 'Bram',
      creatorId: owner.user.id,
      popularity: 200,
      introduction: 'A blacksmith.',
    })
    aiko = await createRole(db, {
      name: '藍子',
      creatorId: owner.user.id,
      sourceLanguage: 'ja',
      popularity: 100,
      introduction: '東京の喫茶店の店主。',
    })
    hidden = await createRole(db, { name: 'Hidden', creatorId: owner.user.id, visibility: 'private' })
    await t.app.services.roleTexts.saveAuthorTranslation(owner.user.id, seraphine, 'ja', seraphineJa)
  })
  afterAll(() => t?.close())

  it("lists the locale's names and summaries, saying which language each card is in", async () => {
    const ja = await list('?locale=ja')
    expect(card(ja.items, seraphine)).toMatchObject({
      name: seraphineJa.name,
      language: 'ja',
      summary: expect.stringContaining('郵便飛竜'),
    })
    // No translation: its own texts, in its own language.
    expect(card(ja.items, bram)).toMatchObject({ name: 'Bram', language: 'en', summary: 'A blacksmith.' })
    expect(card(ja.items, aiko)).toMatchObject({ name: '藍子', language: 'ja' })

    const en = await list('?locale=en')
    expect(card(en.items, seraphine)).toMatchObject({ name: 'Seraphine', language: 'en' })
    expect(card(en.items, aiko)).toMatchObject({ name: '藍子', language: 'ja' })
  })

  it('drops the cached listing as soon as a translation is saved or removed', async () => {
    expect(card((await list('?locale=ja')).items, bram)?.name).toBe('Bram')
    await t.app.services.roleTexts.saveAuthorTranslation(owner.user.id, bram, 'ja', {
      name: '鍛冶屋のブラム',
      introduction: '村の鍛冶屋。',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    })
    expect(card((await list('?locale=ja')).items, bram)).toMatchObject({ name: '鍛冶屋のブラム', language: 'ja' })
    // Tag pages and "more characters" read the same cached heads.
    expect(card((await list('?locale=ja&tags=fantasy')).items, seraphine)?.name).toBe(seraphineJa.name)
    await t.app.services.roleTexts.removeTranslation(owner.user.id, bram, 'ja')
    expect(card((await list('?locale=ja')).items, bram)).toMatchObject({ name: 'Bram', language: 'en' })
  })

  it("finds a character by a word of its translation in the visitor's language, Japanese written without spaces", async () => {
    const found = await list(`?locale=ja&q=${encodeURIComponent('飛竜')}`)
    expect(found.items.map((r) => r.roleId)).toEqual([seraphine])
    expect(found.items[0]?.name).toBe(seraphineJa.name)
    // Several words typed together, as a Japanese reader would.
    expect((await list(`?locale=ja&q=${encodeURIComponent('手紙を運ぶ')}`)).items.map((r) => r.roleId)).toEqual([
      seraphine,
    ])
    // The tag's name in that locale, and its own English texts, still match.
    expect((await list(`?locale=ja&q=${encodeURIComponent('ファンタジー')}`)).items.map((r) => r.roleId)).toEqual([
      seraphine,
    ])
    expect((await list('?locale=ja&q=wyverns')).items.map((r) => r.roleId)).toEqual([seraphine])
    // Another locale's visitors do not search the Japanese translation...
    expect((await list(`?locale=en&q=${encodeURIComponent('飛竜')}`)).total).toBe(0)
    // ...but a character written in Japanese is found by its own words in any locale.
    expect((await list(`?locale=en&q=${encodeURIComponent('喫茶店')}`)).items.map((r) => r.roleId)).toEqual([aiko])
  })

  it('finds by translation whichever way a page is read: walking the order row by row, or collecting the matches', async () => {
    const repo = createCatalogueRepo(t.database.db)
    const page = (tsQuery: string, locale: Locale, searchPath: 'index' | 'matches') =>
      repo.listPublicRoles({ sort: 'popularity', tagIds: [], tsQuery, locale, offset: 0, limit: 20, searchPath })
    for (const searchPath of ['index', 'matches'] as const) {
      const ja = searchQueryFor('飛竜', 'ja') as string
      expect(
        (await page(ja, 'ja', searchPath)).map((r) => r.publicId),
        searchPath,
      ).toEqual([seraphine])
      // Another locale's visitors do not search the Japanese translation.
      expect(await page(ja, 'en', searchPath), searchPath).toEqual([])
      // Its own words, in any locale.
      const own = searchQueryFor('wyverns', 'ja') as string
      expect(
        (await page(own, 'ja', searchPath)).map((r) => r.publicId),
        searchPath,
      ).toEqual([seraphine])
    }
  })

  it('shows the character page in the locale, its own texts with ?original=1, and says which', async () => {
    const ja = await detail(seraphine, 'ja')
    expect(ja).toMatchObject({
      name: seraphineJa.name,
      introduction: seraphineJa.introduction,
      scenario: seraphineJa.scenario,
      firstMessage: seraphineJa.firstMessage,
      // An empty translated greeting is the source's.
      alternateGreetings: ['Back again?', 'また来たの？'],
      language: 'ja',
      sourceLanguage: 'en',
      translation: { origin: 'author', stale: false },
      languages: ['en', 'ja'],
      // Model-facing texts stay as written.
      personality: '',
    })
    const original = await detail(seraphine, 'ja', '&original=1')
    expect(original).toMatchObject({
      name: 'Seraphine',
      introduction: 'A courier who flies wyverns over the mountains.',
      language: 'en',
      translation: { origin: 'author', stale: false },
    })
    const en = await detail(seraphine, 'en')
    expect(en).toMatchObject({ name: 'Seraphine', language: 'en', sourceLanguage: 'en', translation: null })
    expect(await detail(aiko, 'ja')).toMatchObject({ language: 'ja', sourceLanguage: 'ja', translation: null })
  })

  it('asks for a translation when a public character is shown in a locale with no fresh one', async () => {
    const wanted: string[] = []
    const stop = t.app.services.roleTexts.listen({ wanted: (id, locale) => void wanted.push(`${id}:${locale}`) })
    try {
      await detail(bram, 'de')
      await detail(seraphine, 'ja') // fresh author translation
      await detail(seraphine, 'en') // its own language
      await detail(aiko, 'ko')
      await t.app.inject({ method: 'GET', url: `/api/role?roleId=${hidden}&locale=fr` })
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(wanted.sort()).toEqual([`${aiko}:ko`, `${bram}:de`].sort())
    } finally {
      stop()
    }
  })

  it('"more characters" next to other content is in the locale too', async () => {
    const related = await t.app.services.catalogue.listRelatedRoles(['fantasy'], 3, 'ja')
    expect(card(related, seraphine)).toMatchObject({ name: seraphineJa.name, language: 'ja' })
  })
})
