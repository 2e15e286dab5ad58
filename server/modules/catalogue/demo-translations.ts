import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import type { RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { publicIdFor, type SeedCharacter } from './demo-content.ts'

/**
 * The shipped translations of the demo characters (issue 20, ADR 039): `content/characters/i18n/
 * <locale>.json`, one object per locale keyed by character key (see that folder's README). Loaded
 * as the characters' author translations with the current source hash; loading again replaces
 * what changed. Missing files and keys are simply not loaded.
 */
export type SeedTranslation = {
  name?: string
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings?: string[]
}

export const SEED_TRANSLATIONS_DIR = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'content',
  'characters',
  'i18n',
)

/** Every `<locale>.json` of the folder, by file name (not checked: see `seedTranslationProblems`). */
export function readSeedTranslationFiles(dir = SEED_TRANSLATIONS_DIR): Map<string, Record<string, SeedTranslation>> {
  const files = new Map<string, Record<string, SeedTranslation>>()
  if (!existsSync(dir)) return files
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    files.set(file.slice(0, -'.json'.length), JSON.parse(readFileSync(path.join(dir, file), 'utf8')))
  }
  return files
}

const MACRO = /\{\{\s*(char|user)\s*\}\}|<(bot|user)>/gi

/** The name macros a text uses, as a sorted set (`{{User}}` and `<USER>` are one). */
function macrosOf(text: string): string[] {
  const found = new Set<string>()
  for (const match of text.matchAll(MACRO)) {
    const name = (match[1] ?? match[2] ?? '').toLowerCase()
    found.add(name === 'bot' ? 'char' : name)
  }
  return [...found].sort()
}

const paragraphs = (text: string) => text.trim().split(/\n\s*\n/).length

const CHECKED_FIELDS = ['introduction', 'scenario', 'firstMessage'] as const

/**
 * What is wrong with the translation files, one line each (empty: nothing): a file that is not a
 * locale (or is the source, English), a key that is no character, a text that is missing or empty,
 * a text whose `{{user}}`/`{{char}}` macros differ from the source's, or with another number of
 * paragraphs (`\n\n`).
 */
export function seedTranslationProblems(
  characters: SeedCharacter[],
  files: Map<string, Record<string, SeedTranslation>>,
): string[] {
  const problems: string[] = []
  const byKey = new Map(characters.map((c) => [c.key, c]))
  for (const [locale, entries] of files) {
    if (!isLocale(locale) || locale === DEFAULT_LOCALE) {
      problems.push(`${locale}.json: not a locale to translate into`)
      continue
    }
    if (!entries || typeof entries !== 'object' || Array.isArray(entries)) {
      problems.push(`${locale}.json: not an object keyed by character key`)
      continue
    }
    for (const [key, entry] of Object.entries(entries)) {
      const source = byKey.get(key)
      if (!source) {
        problems.push(`${locale}.json: ${key}: no such character`)
        continue
      }
      if (entry.name !== undefined && (typeof entry.name !== 'string' || entry.name.trim() === '')) {
        problems.push(`${locale}.json: ${key}.name: empty`)
      }
      for (const field of CHECKED_FIELDS) {
        const text = entry[field]
        if (typeof text !== 'string' || text.trim() === '') {
          problems.push(`${locale}.json: ${key}.${field}: missing or empty`)
          continue
        }
        const want = macrosOf(source[field])
        const got = macrosOf(text)
        if (want.join() !== got.join()) {
          problems.push(
            `${locale}.json: ${key}.${field}: macros ${got.join(', ') || 'none'}, the source has ${want.join(', ') || 'none'}`,
          )
        }
        if (paragraphs(text) !== paragraphs(source[field])) {
          problems.push(
            `${locale}.json: ${key}.${field}: ${paragraphs(text)} paragraphs, the source has ${paragraphs(source[field])}`,
          )
        }
      }
      if (entry.alternateGreetings !== undefined && !Array.isArray(entry.alternateGreetings)) {
        problems.push(`${locale}.json: ${key}.alternateGreetings: not a list`)
      }
    }
  }
  return problems
}

/**
 * Loads the translation files as the demo characters' author translations. Files or entries that
 * do not pass `seedTranslationProblems` are skipped (the content test names them). Returns how many
 * translations were written (0 when nothing changed).
 */
export async function seedCharacterTranslations(
  texts: Pick<RoleTextsService, 'importAuthorTranslations'>,
  characters: SeedCharacter[],
  files = readSeedTranslationFiles(),
): Promise<number> {
  const problems = seedTranslationProblems(characters, files)
  const broken = (locale: string, key: string) =>
    problems.some((p) => p.startsWith(`${locale}.json: ${key}`) || p.startsWith(`${locale}.json: not`))
  let written = 0
  for (const character of characters) {
    const translations: Partial<Record<Locale, Parameters<RoleTextsService['importAuthorTranslations']>[1][Locale]>> =
      {}
    for (const [locale, entries] of files) {
      const entry = isLocale(locale) ? entries[character.key] : undefined
      if (!entry || !isLocale(locale) || broken(locale, character.key)) continue
      translations[locale] = {
        name: entry.name?.trim() || null,
        introduction: entry.introduction.trim(),
        scenario: entry.scenario.trim(),
        firstMessage: entry.firstMessage.trim(),
        alternateGreetings: (entry.alternateGreetings ?? []).map((g) => g.trim()),
      }
    }
    if (Object.keys(translations).length > 0) {
      written += await texts.importAuthorTranslations(publicIdFor(character.key), translations)
    }
  }
  return written
}
