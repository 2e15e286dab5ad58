import { describe, expect, it } from 'vitest'
import { CARD_IMPORT_ERRORS, CARD_REPORT_REASONS, checkCharacterFields, textLength } from '#contracts/characters.ts'
import { CARD_ERROR_CODES, IGNORED_REASONS, REPAIR_REASONS } from '#server/modules/cards/card-types.ts'
import { importCard } from '#server/modules/cards/import-card.ts'
import { cardPng, v3Card } from '#tests/factories/card-files.ts'
import {
  asciiFileNameOf,
  attachmentDisposition,
  draftOfCharacter,
  fileNameFor,
  formOfDraft,
  takeCardLanguages,
} from './card-mapping.ts'
import type { RoleForm } from './role-form.ts'
import { findTag, slugForTag } from './tag-slug.ts'

const fr = {
  name: null,
  introduction: 'Une cartographe.',
  scenario: '',
  firstMessage: 'Bonjour !',
  alternateGreetings: [],
}

describe('card mapping', () => {
  it('keeps the browser’s lists of card reasons and errors equal to the codec’s', () => {
    expect([...CARD_REPORT_REASONS]).toEqual([...REPAIR_REASONS, ...IGNORED_REASONS, 'avatar_unreadable'])
    expect([...CARD_IMPORT_ERRORS]).toEqual([...CARD_ERROR_CODES])
  })

  it('turns an imported draft into the form and back into the same draft', () => {
    const { draft } = importCard(cardPng({ ccv3: v3Card() }))
    const { tagNames, ...form } = formOfDraft(draft)
    expect(form).toMatchObject({ introduction: draft.creatorNotes, details: draft.description, isAdult: false })
    // The card's languages ride in the extras to the save, which stores them apart (ADR 041).
    const { sourceLanguage = 'en', translations = [], ...stored } = form.cardExtras
    expect(sourceLanguage).toBe('en')
    expect(translations).toEqual([{ locale: 'fr', texts: draft.translations.fr }])
    const back = draftOfCharacter({
      name: form.name,
      introduction: form.introduction,
      scenario: form.scenario,
      personality: form.personality,
      description: form.details,
      firstMessage: form.firstMessage,
      alternateGreetings: form.alternateGreetings,
      exampleDialogue: form.exampleDialogue,
      isAdult: form.isAdult,
      tagNames,
      characterBook: form.lorebook,
      cardExtras: stored,
      creatorUsername: 'someone-else',
      createdAt: new Date(0),
      sourceLanguage,
      translations: Object.fromEntries(translations.map((t) => [t.locale, t.texts])),
    })
    expect(back).toEqual({ ...draft, avatar: null })
  })

  it('names the creator and the creation date when the card had none', () => {
    const draft = draftOfCharacter({
      name: 'N',
      introduction: '',
      scenario: '',
      personality: '',
      description: '',
      firstMessage: '',
      alternateGreetings: [],
      exampleDialogue: '',
      isAdult: true,
      tagNames: [],
      characterBook: null,
      cardExtras: {},
      creatorUsername: 'maker',
      createdAt: new Date('2025-01-02T00:00:00Z'),
      sourceLanguage: 'ja',
      translations: { ja: { ...fr, introduction: 'ignored' }, fr },
    })
    expect(draft).toMatchObject({ creator: 'maker', creationDate: 1_735_776_000, nsfw: true, extensions: {} })
    // A translation into the character's own language is not exported (it is not shown either).
    expect(draft).toMatchObject({ sourceLanguage: 'ja', translations: { fr } })
    expect(draft.translations).not.toHaveProperty('ja')
  })

  it('takes the card’s languages out of a submitted form: the form’s own language wins, over-long translations go', () => {
    const form = (sourceLanguage: RoleForm['sourceLanguage'], cardExtras: RoleForm['cardExtras']): RoleForm => ({
      fields: {} as RoleForm['fields'],
      sourceLanguage,
      lorebook: undefined,
      cardExtras,
      avatar: null,
      banner: null,
      removeAvatar: false,
      removeBanner: false,
      cardFiles: undefined,
    })
    expect(takeCardLanguages(form(undefined, undefined))).toEqual({
      form: form(undefined, undefined),
      translations: [],
    })
    const { cardExtras } = formOfDraft(importCard(cardPng({ ccv3: v3Card() }), undefined, 'ja').draft)
    const long = { locale: 'de' as const, texts: { ...fr, scenario: 's'.repeat(10_001) } }
    const withLong = { ...cardExtras, translations: [...(cardExtras.translations ?? []), long] }
    const fromCard = takeCardLanguages(form(undefined, withLong))
    expect(fromCard.form.sourceLanguage).toBe('en')
    expect(fromCard.form.cardExtras).not.toHaveProperty('translations')
    expect(fromCard.form.cardExtras).not.toHaveProperty('sourceLanguage')
    expect(fromCard.form.cardExtras).toMatchObject({ creator: 'alice', systemPrompt: 'Stay in character.' })
    expect(fromCard.translations.map((t) => t.locale)).toEqual(['fr'])
    expect(takeCardLanguages(form('ko', withLong)).form.sourceLanguage).toBe('ko')
  })

  it('makes safe download names in the character’s own script, with an ASCII fallback', () => {
    expect(fileNameFor('Mira Vale', 'png')).toBe('Mira_Vale.png')
    expect(fileNameFor('Élodie "the" <Bold>', 'json')).toBe('Élodie_the_Bold.json')
    expect(fileNameFor('東京', 'png')).toBe('東京.png')
    expect(fileNameFor('../a/b\u202Egnp.exe', 'charx')).toBe('abgnp.exe.charx')
    expect(fileNameFor(' \u0001 ', 'png')).toBe('character.png')
    expect(asciiFileNameOf('Élodie_the_Bold.json')).toBe('Elodie_the_Bold.json')
    expect(asciiFileNameOf('東京.png')).toBe('character.png')
    expect(attachmentDisposition('東京 (1)*.png')).toBe(
      `attachment; filename="1.png"; filename*=UTF-8''%E6%9D%B1%E4%BA%AC%20%281%29%2A.png`,
    )
  })
})

describe('tags', () => {
  it('slugs names as tag filters accept them, with a stable hash for other scripts', () => {
    expect(slugForTag('Pirate Queen')).toBe('pirate-queen')
    expect(slugForTag('  Sci-Fi!! ')).toBe('sci-fi')
    expect(slugForTag('Café Noir')).toBe('cafe-noir')
    expect(slugForTag('魔法少女')).toMatch(/^t-[0-9a-f]{12}$/)
    expect(slugForTag('魔法少女')).toBe(slugForTag('魔法少女'))
    for (const name of ['x'.repeat(80), 'a', '🙂', '--']) expect(slugForTag(name)).toMatch(/^[a-z0-9-]{1,40}$/)
  })

  it('finds the tag meant by its slug or by any locale’s name', () => {
    const known: { slug: string; names: Record<string, string> }[] = [
      { slug: 'sci-fi', names: { en: 'Sci-Fi', fr: 'Science-fiction' } },
      { slug: 'romance', names: { en: 'Romance' } },
    ]
    expect(findTag(known, 'sci-fi')?.slug).toBe('sci-fi')
    expect(findTag(known, 'science-FICTION')?.slug).toBe('sci-fi')
    expect(findTag(known, 'Sci Fi')?.slug).toBe('sci-fi')
    expect(findTag(known, 'Horror')).toBeUndefined()
  })
})

describe('field check', () => {
  const fields = {
    name: 'A',
    introduction: '',
    scenario: '',
    personality: '',
    details: '',
    firstMessage: '',
    exampleDialogue: '',
    alternateGreetings: [],
    tags: [],
    visibility: 'public' as const,
    isAdult: false,
  }
  it('counts code points and refuses tags without letters or digits', () => {
    expect(textLength('👩‍🚀a')).toBe(4)
    expect(textLength('🦜🦜')).toBe(2)
    expect(checkCharacterFields(fields)).toEqual([])
    expect(checkCharacterFields({ ...fields, tags: ['ok', '!!!'] })).toEqual([{ path: 'tags.1', code: 'invalid' }])
  })
})
