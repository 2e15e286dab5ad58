import { describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import { cardPng, v2Card, v3Card } from '#tests/factories/card-files.ts'
import { localeOfCode } from './card-languages.ts'
import type { CardTranslation, CharacterDraft } from './card-types.ts'
import { exportCardJson, exportCardPng, exportCardV2Json } from './export-card.ts'
import { importCard } from './import-card.ts'

// Issue 20 item 6, ADR 041: a card's languages (V3 creator_notes_multilingual and our
// extensions.taleweave) read into the draft and written back.

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')
const only = (introduction: string): CardTranslation => ({
  name: null,
  introduction,
  scenario: '',
  firstMessage: '',
  alternateGreetings: [],
})

const JA = {
  name: '地図師ミラ',
  introduction: '長い返信が向いています。',
  scenario: '夜明けの水没した書庫。',
  first_message: '私の地図を見つけたの？ *微笑む*',
  alternate_greetings: ['今日は潮が遅いね。', ''],
}
const JA_DRAFT: CardTranslation = {
  name: '地図師ミラ',
  introduction: JA.introduction,
  scenario: JA.scenario,
  firstMessage: JA.first_message,
  alternateGreetings: JA.alternate_greetings,
}

/** A V3 card written in German by another Taleweave, with two translations. */
function taleweaveCard(extension: unknown, overrides: Record<string, unknown> = {}) {
  return v3Card({
    creator_notes: 'Am besten mit langen Antworten.',
    creator_notes_multilingual: undefined,
    extensions: { depth_prompt: { prompt: 'Remember the sea.', depth: 4 }, taleweave: extension },
    ...overrides,
  })
}

describe('language codes', () => {
  it('maps ISO 639-1 codes and BCP 47 tags to our locales, case-insensitively', () => {
    const cases: [string, string | null][] = [
      ['ja', 'ja'],
      ['JA', 'ja'],
      ['zh', 'zh-cn'],
      ['zh-CN', 'zh-cn'],
      ['zh-Hans', 'zh-cn'],
      ['zh_Hans_SG', 'zh-cn'],
      ['zh-TW', 'zh-tw'],
      ['zh-Hant', 'zh-tw'],
      ['zh-hant-hk', 'zh-tw'],
      ['zh-HK', 'zh-tw'],
      ['pt-BR', 'pt'],
      ['pt', 'pt'],
      ['en-US', 'en'],
      [' ko ', 'ko'],
      ['uk', null],
      ['tlh', null],
      ['zh-Latn', null],
      ['', null],
    ]
    for (const [code, locale] of cases) expect(localeOfCode(code), code).toBe(locale)
  })
})

describe('import: creator_notes_multilingual', () => {
  it('reads each note in one of our languages as a translation’s introduction, keeping the others', () => {
    const card = v3Card({
      creator_notes: 'Works best with long replies.',
      creator_notes_multilingual: {
        EN: 'Works best with long replies.',
        ja: '長い返信が向いています。',
        zh: '最适合长回复。',
        'zh-Hant': '最適合長回覆。',
        'pt-BR': 'Funciona melhor com respostas longas.',
        tlh: 'jIyajbe’',
        ko: '   ',
      },
    })
    const { draft, report } = importCard(json(card), 'mira.json', 'fr')
    expect(draft.sourceLanguage).toBe('en')
    expect(draft.creatorNotes).toBe('Works best with long replies.')
    expect(draft.translations).toEqual({
      ja: only('長い返信が向いています。'),
      'zh-cn': only('最适合长回复。'),
      'zh-tw': only('最適合長回覆。'),
      pt: only('Funciona melhor com respostas longas.'),
    })
    // Not ours (or empty): kept as they came, so the export gives them back.
    expect(draft.creatorNotesMultilingual).toEqual({ tlh: 'jIyajbe’', ko: '   ' })
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('takes the source language from the note equal to creator_notes, else en (the spec), else the importer’s', () => {
    const notes = (multilingual: unknown, creatorNotes = 'Hallo zusammen.') =>
      importCard(
        json(v3Card({ creator_notes: creatorNotes, creator_notes_multilingual: multilingual })),
        undefined,
        'ja',
      ).draft
    expect(notes({ de: 'Hallo zusammen.', fr: 'Bonjour à tous.' }).sourceLanguage).toBe('de')
    expect(notes({ de: 'Hallo zusammen.', fr: 'Bonjour à tous.' }).translations).toEqual({
      fr: only('Bonjour à tous.'),
    })
    // Equal to two notes: the importer's language first.
    expect(notes({ de: 'Hallo zusammen.', ja: 'Hallo zusammen.' }).sourceLanguage).toBe('ja')
    // Notes without `en`: creator_notes is the `en` note (V3 spec, `creator_notes`).
    expect(notes({ fr: 'Bonjour à tous.' }).sourceLanguage).toBe('en')
    expect(notes({}).sourceLanguage).toBe('ja')
    // Notes with an `en` that differs: the card does not say; the importer's language.
    expect(notes({ en: 'Hello all.', fr: 'Bonjour à tous.' }).sourceLanguage).toBe('ja')
    // No notes at all (V1, V2, most V3 cards): the importer's language.
    expect(importCard(json(v2Card()), undefined, 'ko').draft).toMatchObject({ sourceLanguage: 'ko', translations: {} })
    expect(importCard(json(v2Card())).draft.sourceLanguage).toBe('en')
  })

  it('uses the source language’s note as the introduction when creator_notes is empty', () => {
    const card = v3Card({ creator_notes: '', creator_notes_multilingual: { ja: 'はじめまして。', en: 'Hello.' } })
    const { draft } = importCard(json(card), undefined, 'ja')
    expect(draft).toMatchObject({
      sourceLanguage: 'ja',
      creatorNotes: 'はじめまして。',
      translations: { en: only('Hello.') },
    })
  })

  it('reports a note too long for an introduction and keeps it for the export', () => {
    const long = 'x'.repeat(CHARACTER_LIMITS.introduction + 1)
    const card = v3Card({ creator_notes_multilingual: { en: 'Works best with long replies.', fr: long } })
    const { draft, report } = importCard(json(card))
    expect(draft.translations).toEqual({})
    expect(draft.creatorNotesMultilingual).toEqual({ fr: long })
    expect(report.ignored).toEqual(['translation_invalid:creator_notes_multilingual.fr'])
    expect(exportCardJson(draft).data).toMatchObject({ creator_notes_multilingual: { fr: long } })
  })
})

describe('import: extensions.taleweave', () => {
  it('reads the source language and the translations, and takes the extension out of extensions', () => {
    const card = taleweaveCard({
      source_language: 'de',
      translations: { ja: JA, fr: { introduction: 'Idéal avec de longues réponses.' } },
    })
    const { draft, report } = importCard(cardPng({ ccv3: card }), 'mira.png', 'en')
    expect(report).toEqual({ repaired: [], ignored: [] })
    expect(draft.sourceLanguage).toBe('de')
    expect(draft.translations).toEqual({ ja: JA_DRAFT, fr: only('Idéal avec de longues réponses.') })
    expect(draft.extensions).toEqual({ depth_prompt: { prompt: 'Remember the sea.', depth: 4 } })
  })

  it('skips and reports what is malformed, over the form’s limits or not ours, and still imports the rest', () => {
    const card = taleweaveCard({
      source_language: 'de',
      translations: {
        ja: JA,
        fr: 'Bonjour',
        es: { introduction: 42 },
        it: { introduction: 'Ciao', alternate_greetings: 'Ciao di nuovo' },
        nl: { introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1) },
        sv: { introduction: 'Hej', alternate_greetings: Array.from({ length: 31 }, () => 'Hej') },
        pl: { introduction: '', scenario: ' ' },
        tr: { name: ['Mira'], introduction: 'Merhaba' },
        de: { introduction: 'Am besten mit langen Antworten.' },
        tlh: { introduction: 'nuqneH' },
        'pt-BR': { introduction: 'Olá' },
        pt: { introduction: 'Olá!' },
      },
    })
    const { draft, report } = importCard(json(card))
    expect(draft.sourceLanguage).toBe('de')
    expect(draft.translations).toEqual({ ja: JA_DRAFT, pt: only('Olá!') })
    const path = 'extensions.taleweave.translations'
    expect(report.ignored.sort()).toEqual(
      [
        `translation_invalid:${path}.fr`,
        `translation_invalid:${path}.es`,
        `translation_invalid:${path}.it`,
        `translation_invalid:${path}.nl`,
        `translation_invalid:${path}.sv`,
        `translation_invalid:${path}.pl`,
        `translation_invalid:${path}.tr`,
        // A translation into the card's own language.
        `translation_invalid:${path}.de`,
        `language_unknown:${path}.tlh`,
        // `pt-BR` and `pt` are one locale: the exact code wins.
        `translation_invalid:${path}.pt-BR`,
      ].sort(),
    )
  })

  it('falls back to the notes and the importer’s language when the extension itself is unusable', () => {
    for (const [extension, reported] of [
      ['not an object', 'translation_invalid:extensions.taleweave'],
      [{ source_language: 'klingon', translations: [] }, 'language_unknown:extensions.taleweave.source_language'],
      [{ source_language: 7 }, 'language_unknown:extensions.taleweave.source_language'],
    ] as const) {
      const { draft, report } = importCard(json(taleweaveCard(extension)), undefined, 'ko')
      expect(draft.sourceLanguage).toBe('ko')
      expect(draft.extensions).not.toHaveProperty('taleweave')
      expect(report.ignored).toContain(reported)
    }
    const list = importCard(json(taleweaveCard({ source_language: 'de', translations: [JA] }))).report
    expect(list.ignored).toEqual(['translation_invalid:extensions.taleweave.translations'])
  })

  it('lets a note edited by another tool win over the extension’s introduction', () => {
    const card = taleweaveCard(
      { source_language: 'de', translations: { ja: JA } },
      { creator_notes_multilingual: { de: 'Am besten mit langen Antworten.', ja: '書き直した紹介文。' } },
    )
    const { draft, report } = importCard(json(card))
    expect(draft.translations.ja).toEqual({ ...JA_DRAFT, introduction: '書き直した紹介文。' })
    expect(draft.creatorNotesMultilingual).toBeUndefined()
    expect(report).toEqual({ repaired: [], ignored: [] })
  })
})

describe('export', () => {
  function draftWithLanguages(): CharacterDraft {
    const { draft } = importCard(
      json(taleweaveCard({ source_language: 'de', translations: { ja: JA, 'zh-tw': { scenario: '黎明的書庫。' } } })),
    )
    return { ...draft, creatorNotesMultilingual: { tlh: 'jIyajbe’' } }
  }

  it('writes creator_notes_multilingual (V3) and extensions.taleweave (V3 and V2) keyed by our locales', () => {
    const draft = draftWithLanguages()
    const v3 = exportCardJson(draft).data as Record<string, unknown>
    expect(v3.creator_notes_multilingual).toEqual({
      tlh: 'jIyajbe’',
      de: 'Am besten mit langen Antworten.',
      ja: JA.introduction,
    })
    const extension = {
      source_language: 'de',
      translations: {
        ja: JA,
        'zh-tw': { introduction: '', scenario: '黎明的書庫。', first_message: '', alternate_greetings: [] },
      },
    }
    expect(v3.extensions).toEqual({ depth_prompt: { prompt: 'Remember the sea.', depth: 4 }, taleweave: extension })
    const v2 = exportCardV2Json(draft).data as Record<string, unknown>
    expect(v2).not.toHaveProperty('creator_notes_multilingual')
    expect(v2.extensions).toMatchObject({ taleweave: extension })
  })

  it('round trip: JSON and PNG give the same source language and translations back, with an empty report', async () => {
    const draft = draftWithLanguages()
    for (const bytes of [json(exportCardJson(draft)), await exportCardPng(draft)]) {
      const again = importCard(bytes, undefined, 'ar')
      expect(again.report).toEqual({ repaired: [], ignored: [] })
      expect(again.draft.sourceLanguage).toBe('de')
      expect(again.draft.translations).toEqual(draft.translations)
      expect({ ...again.draft, avatar: null }).toEqual({ ...draft, avatar: null })
    }
    // The chara (V2) chunk alone still carries them, in the extension.
    const v2 = importCard(json(exportCardV2Json(draft)), undefined, 'ar').draft
    expect(v2).toMatchObject({ sourceLanguage: 'de', translations: draft.translations })
  })
})
