import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS, type EditableRole, type ImportResult } from '#contracts/characters.ts'
import type { RoleTranslationList } from '#contracts/role-texts.ts'
import type { CardTranslation } from '#server/modules/cards/card-types.ts'
import { exportCardJson, exportCardPng } from '#server/modules/cards/export-card.ts'
import { importCard } from '#server/modules/cards/import-card.ts'
import { createRoleTextsRepo } from '#server/modules/role-texts/role-texts.repo.ts'
import { createRoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { cardPng, v3Card } from '#tests/factories/card-files.ts'
import { draftForm, multipart, REAL_CARDS_DIR, realCharacterCards } from '#tests/helpers/card-forms.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 20 item 6 (ADR 041) through the API: a card's languages become the character's source
// language and its creator's translations on save, and travel out again in its exports.

type Session = Awaited<ReturnType<TestApp['login']>>

const JA = {
  name: '地図師ミラ',
  introduction: '長い返信が向いています。',
  scenario: '夜明けの水没した書庫。',
  first_message: '私の地図を見つけたの？ *微笑む*',
  alternate_greetings: ['今日は潮が遅いね。', ''],
}
const ZH_TW = {
  introduction: '最適合長回覆。',
  scenario: '',
  first_message: '你找到我的地圖了？',
  alternate_greetings: [],
}

/** A card another Taleweave wrote: German texts, Japanese and Traditional Chinese translations. */
const germanCard = () =>
  v3Card({
    name: 'Mira Vale',
    creator_notes: 'Am besten mit langen Antworten.',
    first_mes: 'Du hast meine Karten gefunden?',
    creator_notes_multilingual: { de: 'Am besten mit langen Antworten.', ja: JA.introduction, tlh: 'jIyajbe’' },
    extensions: { taleweave: { source_language: 'de', translations: { ja: JA, 'zh-tw': ZH_TW } } },
  })

describe('character cards carry the character’s languages (ADR 041)', () => {
  let t: TestApp
  let owner: Session

  beforeAll(async () => {
    t = await buildTestApp()
    owner = await t.login({ username: 'polyglot' })
  })
  afterAll(() => t?.close())

  const auth = (session: Session = owner) => ({ authorization: `Bearer ${session.token}` })
  const importFile = async (bytes: Uint8Array, name: string, locale: string, session = owner) => {
    const body = await multipart({ file: { bytes, name } })
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/roles/import?locale=${locale}`,
      payload: body.payload,
      headers: { ...body.headers, ...auth(session) },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as ImportResult
  }
  /** Saves an imported draft as the form does (the card extras sent back as they came). */
  const save = async (imported: ImportResult, locale: string, session = owner) => {
    const { draft } = imported
    const body = await multipart(draftForm(draft, { visibility: 'public', isAdult: false }))
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/addRole?locale=${locale}`,
      payload: body.payload,
      headers: { ...body.headers, ...auth(session) },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as EditableRole
  }
  const translationsOf = async (roleId: string, session = owner) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/role/translations',
      payload: { roleId },
      headers: auth(session),
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as RoleTranslationList
  }
  const exported = async (roleId: string, format: 'png' | 'json') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/roles/${roleId}/export.${format}` })
    expect(res.statusCode, res.body).toBe(200)
    return res.rawPayload
  }
  /** What the card's languages are in an import's draft (the form carries them to the save). */
  const languagesOf = (result: ImportResult) => ({
    sourceLanguage: result.draft.cardExtras.sourceLanguage,
    translations: result.draft.cardExtras.translations,
  })

  it('imports, saves and exports them, and a re-import (PNG and JSON) gives the same ones back', async () => {
    const imported = await importFile(cardPng({ ccv3: germanCard() }), 'mira.png', 'fr')
    expect(imported.report).toEqual({ repaired: [], ignored: [], problems: [] })
    expect(imported.draft.introduction).toBe('Am besten mit langen Antworten.')
    const jaTexts: CardTranslation = {
      name: JA.name,
      introduction: JA.introduction,
      scenario: JA.scenario,
      firstMessage: JA.first_message,
      alternateGreetings: JA.alternate_greetings,
    }
    const zhTexts: CardTranslation = {
      name: null,
      introduction: ZH_TW.introduction,
      scenario: '',
      firstMessage: ZH_TW.first_message,
      alternateGreetings: [],
    }
    expect(languagesOf(imported)).toEqual({
      sourceLanguage: 'de',
      translations: [
        { locale: 'zh-tw', texts: zhTexts },
        { locale: 'ja', texts: jaTexts },
      ],
    })

    // Saved by a French-speaking creator: the card's German is the source language.
    const role = await save(imported, 'fr')
    expect(role.sourceLanguage).toBe('de')
    expect(role.cardExtras).not.toHaveProperty('translations')
    expect(role.cardExtras.creatorNotesMultilingual).toEqual({ tlh: 'jIyajbe’' })
    const list = await translationsOf(role.roleId)
    expect(list.sourceLanguage).toBe('de')
    expect(list.translations.map(({ locale, origin, stale, texts }) => ({ locale, origin, stale, texts }))).toEqual([
      { locale: 'ja', origin: 'author', stale: false, texts: jaTexts },
      { locale: 'zh-tw', origin: 'author', stale: false, texts: zhTexts },
    ])
    // A machine translation is ours to make again: not exported.
    const texts = createRoleTextsService({ repo: createRoleTextsRepo(t.database.db) })
    const source = await texts.sourceOf(role.roleId)
    const machine = {
      name: null,
      introduction: 'Funziona meglio.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    }
    expect(await texts.saveMachineTranslation(role.roleId, 'it', machine, source?.sourceHash ?? '')).toBe(true)

    const json = await exported(role.roleId, 'json')
    const data = JSON.parse(json.toString('utf8')).data
    expect(data.creator_notes_multilingual).toEqual({
      tlh: 'jIyajbe’',
      de: 'Am besten mit langen Antworten.',
      'zh-tw': ZH_TW.introduction,
      ja: JA.introduction,
    })
    expect(data.extensions.taleweave).toEqual({
      source_language: 'de',
      translations: { 'zh-tw': ZH_TW, ja: JA },
    })
    const png = await exported(role.roleId, 'png')
    for (const [bytes, name] of [
      [json, 'mira.json'],
      [png, 'mira.png'],
    ] as const) {
      // Imported by someone whose interface is Korean: the card still says German.
      const again = await importFile(bytes, name, 'ko')
      expect(again.report, name).toEqual({ repaired: [], ignored: [], problems: [] })
      expect(languagesOf(again), name).toEqual(languagesOf(imported))
      const copy = await save(again, 'ko')
      const copied = await translationsOf(copy.roleId)
      expect(copied.sourceLanguage).toBe('de')
      expect(copied.translations.map((x) => [x.locale, x.origin, x.texts])).toEqual(
        list.translations.map((x) => [x.locale, x.origin, x.texts]),
      )
    }
  })

  it('imports the languages of a V3 card from elsewhere (creator_notes_multilingual)', async () => {
    const card = v3Card({
      name: 'Outside Card',
      creator_notes: 'Works best with long replies.',
      creator_notes_multilingual: {
        en: 'Works best with long replies.',
        JA: '長い返信が向いています。',
        zh: '最适合长回复。',
        'zh-Hant': '最適合長回覆。',
        'pt-BR': 'Funciona melhor com respostas longas.',
        eo: 'Plej bone kun longaj respondoj.',
      },
    })
    const imported = await importFile(Buffer.from(JSON.stringify(card)), 'outside.json', 'ja')
    expect(imported.report).toEqual({ repaired: [], ignored: [], problems: [] })
    const role = await save(imported, 'ja')
    const list = await translationsOf(role.roleId)
    expect(list.sourceLanguage).toBe('en')
    expect(Object.fromEntries(list.translations.map((x) => [x.locale, x.texts.introduction]))).toEqual({
      ja: '長い返信が向いています。',
      'zh-cn': '最适合长回复。',
      'zh-tw': '最適合長回覆。',
      pt: 'Funciona melhor com respostas longas.',
    })
    // The Esperanto note is none of our languages: kept, and exported again.
    const data = JSON.parse((await exported(role.roleId, 'json')).toString('utf8')).data
    expect(data.creator_notes_multilingual).toMatchObject({
      eo: 'Plej bone kun longaj respondoj.',
      'zh-cn': '最适合长回复。',
    })
  })

  it('imports a card whose extension is malformed, with a report line per unusable part', async () => {
    const card = v3Card({
      name: 'Broken Extension',
      creator_notes_multilingual: undefined,
      extensions: {
        taleweave: { source_language: 'xx', translations: { ja: { introduction: 7 }, fr: { introduction: 'Salut' } } },
      },
    })
    const imported = await importFile(cardPng({ ccv3: card }), 'broken.png', 'es')
    expect(imported.report.ignored).toEqual([
      'language_unknown:extensions.taleweave.source_language',
      'translation_invalid:extensions.taleweave.translations.ja',
    ])
    expect(languagesOf(imported)).toEqual({
      sourceLanguage: 'es',
      translations: [
        {
          locale: 'fr',
          texts: { name: null, introduction: 'Salut', scenario: '', firstMessage: '', alternateGreetings: [] },
        },
      ],
    })
    const malformed = v3Card({ extensions: { taleweave: 'nonsense' } })
    const report = (await importFile(Buffer.from(JSON.stringify(malformed)), 'x.json', 'es')).report
    expect(report.ignored).toContain('translation_invalid:extensions.taleweave')
  })

  it('leaves out what a tampered form sends: over-long translations and one into the source language', async () => {
    const imported = await importFile(cardPng({ ccv3: germanCard() }), 'mira.png', 'de')
    const extras = imported.draft.cardExtras
    const tampered: ImportResult = {
      ...imported,
      draft: {
        ...imported.draft,
        cardExtras: {
          ...extras,
          translations: [
            ...(extras.translations ?? []),
            {
              locale: 'de',
              texts: { name: null, introduction: 'x', scenario: '', firstMessage: '', alternateGreetings: [] },
            },
            {
              locale: 'fr',
              texts: {
                name: null,
                introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1),
                scenario: '',
                firstMessage: '',
                alternateGreetings: [],
              },
            },
          ],
        },
      },
    }
    const role = await save(tampered, 'de')
    expect((await translationsOf(role.roleId)).translations.map((x) => x.locale)).toEqual(['ja', 'zh-tw'])
  })

  it.skipIf(realCharacterCards.length === 0)(
    'real cards: import the same as before, then carry translations out and back',
    () => {
      expect(realCharacterCards.length).toBeGreaterThanOrEqual(20)
      const ja: CardTranslation = {
        name: null,
        introduction: '紹介文。',
        scenario: '',
        firstMessage: 'こんにちは。',
        alternateGreetings: [],
      }
      return Promise.all(
        realCharacterCards.map(async (file) => {
          const bytes = readFileSync(path.join(REAL_CARDS_DIR, file))
          const first = importCard(bytes, file, 'ko')
          // None of them says its language: the importer's; none brings a translation.
          expect(first.draft.sourceLanguage, file).toBe('ko')
          expect(first.draft.translations, file).toEqual({})
          expect([...first.report.ignored, ...first.report.repaired].join(), file).not.toMatch(/translation|language/)
          const draft = { ...first.draft, sourceLanguage: 'ko' as const, translations: { ja } }
          // JSON has nowhere to carry the card's files (ADR 047); the PNG carries them.
          for (const [exportedBytes, files] of [
            [Buffer.from(JSON.stringify(exportCardJson(draft))), []],
            [await exportCardPng(draft), draft.files],
          ] as const) {
            const again = importCard(exportedBytes, file, 'en')
            expect(again.report, file).toEqual({ repaired: [], ignored: [] })
            expect({ ...again.draft, avatar: null }, file).toEqual({ ...draft, avatar: null, files })
          }
        }),
      )
    },
  )
})
