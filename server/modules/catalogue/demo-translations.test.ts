import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleDetail } from '#contracts/catalogue.ts'
import { isLocale } from '#contracts/locales.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { publicIdFor, readSeedCharacters, type SeedCharacter } from './demo-content.ts'
import {
  readSeedTranslationFiles,
  SEED_TRANSLATIONS_DIR,
  seedCharacterTranslations,
  seedTranslationProblems,
} from './demo-translations.ts'

const FIXTURES = path.resolve(import.meta.dirname, '..', '..', '..', 'tests', 'fixtures')

const courier: SeedCharacter = {
  key: 'fixture-courier',
  name: 'Sera',
  tags: [],
  adult: false,
  introduction: 'A wyvern rider who carries letters over stormy mountains.\n\nTonight she takes {{user}} into the sky.',
  scenario: '{{user}} carries a sealed letter.',
  personality: 'Brisk.',
  description: 'A courier.',
  firstMessage: 'Hold on tight, {{user}}!',
  alternateGreetings: ['Back again?'],
  exampleDialogue: '',
  avatar: { style: 'adventurer', seed: 'sera' },
  palette: ['#000000', '#ffffff'],
}

describe('the shipped translations of the seed characters (content/characters/i18n)', () => {
  it('every file there is a locale, with known characters, complete texts, the same macros and paragraphs', () => {
    const files = readSeedTranslationFiles()
    for (const name of files.keys()) expect(isLocale(name) && name !== 'en', `${name}.json`).toBe(true)
    expect(seedTranslationProblems(readSeedCharacters(), files)).toEqual([])
    // The folder is there (with its README) for the content to land in.
    expect(SEED_TRANSLATIONS_DIR.endsWith(path.join('content', 'characters', 'i18n'))).toBe(true)
  })

  it('names every kind of mistake', () => {
    const problems = seedTranslationProblems(
      [courier],
      readSeedTranslationFiles(path.join(FIXTURES, 'characters-i18n-broken')),
    )
    expect(problems).toEqual(
      expect.arrayContaining([
        'en.json: not a locale to translate into',
        'klingon.json: not a locale to translate into',
        'ja.json: no-such-character: no such character',
        'ja.json: fixture-courier.introduction: macros none, the source has user',
        'ja.json: fixture-courier.introduction: 1 paragraphs, the source has 2',
        'ja.json: fixture-courier.scenario: macros none, the source has user',
        'ja.json: fixture-courier.firstMessage: missing or empty',
      ]),
    )
    expect(problems).toHaveLength(7)
    expect(
      seedTranslationProblems([courier], readSeedTranslationFiles(path.join(FIXTURES, 'characters-i18n'))),
    ).toEqual([])
  })
})

describe('seeding the translations', () => {
  let t: TestApp
  let roleId: string
  beforeAll(async () => {
    t = await buildTestApp()
    roleId = await createRole(t.database.db, {
      name: courier.name,
      publicId: publicIdFor(courier.key),
      introduction: courier.introduction,
      scenario: courier.scenario,
      firstMessage: courier.firstMessage,
      alternateGreetings: courier.alternateGreetings,
    })
  })
  afterAll(() => t?.close())

  const detail = async (locale: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/role?roleId=${roleId}&locale=${locale}` })).json()
      .data as RoleDetail

  it('loads them as author translations of the current source, replaces what changed, skips what did not', async () => {
    const texts = t.app.services.roleTexts
    const files = readSeedTranslationFiles(path.join(FIXTURES, 'characters-i18n'))
    expect(await seedCharacterTranslations(texts, [courier], files)).toBe(2)
    const ja = await detail('ja')
    expect(ja).toMatchObject({
      name: '飛竜便のセラ',
      firstMessage: 'しっかりつかまって、{{user}}！',
      language: 'ja',
      translation: { origin: 'author', stale: false },
    })
    // No name in the French file: the source name.
    expect(await detail('fr')).toMatchObject({
      name: 'Sera',
      language: 'fr',
      scenario: '{{user}} porte une lettre scellée.',
    })

    // Seeding again with the same content writes nothing (no needless cache drops).
    expect(await seedCharacterTranslations(texts, [courier], files)).toBe(0)
    // A changed text is replaced.
    const ja2 = files.get('ja')?.[courier.key]
    if (!ja2) throw new Error('fixture missing')
    files.set('ja', { [courier.key]: { ...ja2, firstMessage: 'よく来たね、{{user}}。' } })
    expect(await seedCharacterTranslations(texts, [courier], files)).toBe(1)
    expect((await detail('ja')).firstMessage).toBe('よく来たね、{{user}}。')
  })

  it('skips entries that do not pass the checks, loads the others', async () => {
    const texts = t.app.services.roleTexts
    const broken = readSeedTranslationFiles(path.join(FIXTURES, 'characters-i18n-broken'))
    expect(await seedCharacterTranslations(texts, [courier], broken)).toBe(0)
  })
})
