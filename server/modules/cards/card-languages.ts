import { isLocale, LOCALES, type Locale } from '#contracts/locales.ts'
import { checkTranslationTexts } from '#contracts/role-texts.ts'
import type { CardTranslation, CardTranslations, CharacterDraft } from './card-types.ts'
import type { Report } from './normalize-card.ts'

/**
 * The languages a card carries (ADR 041): V3's `creator_notes_multilingual` (language code ->
 * the notes, which are our introduction) and our own namespaced extension,
 *
 *   extensions.taleweave = { source_language, translations: { <locale>: { name?, introduction,
 *     scenario, first_message, alternate_greetings } } }
 *
 * read into the draft's `sourceLanguage` and `translations`, and written back from them. A
 * translation that cannot be used is left out and reported; nothing here throws.
 */

type Json = Record<string, unknown>

const EXTENSION = 'taleweave'
const PATH = `extensions.${EXTENSION}`
const NOTES = 'creator_notes_multilingual'

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const SIMPLIFIED = new Set(['zh', 'zh-cn', 'zh-hans', 'zh-sg', 'zh-my'])
const TRADITIONAL = new Set(['zh-tw', 'zh-hant', 'zh-hk', 'zh-mo'])

/**
 * Our locale for a card's language code, or null. Codes are ISO 639-1 by the spec, but tools write
 * BCP 47 tags too: case and `_` are ignored, `zh` is Simplified Chinese unless the tag says
 * Traditional (`zh-TW`, `zh-Hant`, `zh-HK`), and a region or script we do not have falls back to
 * the language (`pt-BR` and `pt-PT` -> `pt`, `en-US` -> `en`).
 */
export function localeOfCode(code: string): Locale | null {
  const tag = code.trim().toLowerCase().replace(/_/g, '-')
  if (isLocale(tag)) return tag
  const [language = '', script = ''] = tag.split('-')
  if (language === 'zh') {
    if (TRADITIONAL.has(tag) || TRADITIONAL.has(`zh-${script}`)) return 'zh-tw'
    return SIMPLIFIED.has(tag) || SIMPLIFIED.has(`zh-${script}`) || script === '' ? 'zh-cn' : null
  }
  return isLocale(language) ? language : null
}

const clean = (text: string) => text.replace(/\r\n?/g, '\n').trim()

/** One entry of `extensions.taleweave.translations`, or null when its shape is not ours. */
function translationOf(raw: unknown): CardTranslation | null {
  if (!isObject(raw)) return null
  const text = (key: string): string | null => {
    const value = raw[key]
    if (value === undefined || value === null) return ''
    return typeof value === 'string' ? clean(value) : null
  }
  const name = text('name')
  const introduction = text('introduction')
  const scenario = text('scenario')
  const firstMessage = text('first_message')
  const greetings = raw.alternate_greetings ?? []
  if (name === null || introduction === null || scenario === null || firstMessage === null) return null
  if (!Array.isArray(greetings) || !greetings.every((g) => typeof g === 'string')) return null
  return { name: name || null, introduction, scenario, firstMessage, alternateGreetings: greetings.map(clean) }
}

/** Within the form's limits (the limits of the source fields) and not empty. */
function usable(translation: CardTranslation): boolean {
  return checkTranslationTexts(translation).length === 0
}

/** `extensions.taleweave`: the source language it names (if it is one of ours) and its usable translations. */
function readExtension(
  raw: unknown,
  report: Report,
): { source: Locale | null; translations: Map<Locale, { code: string; entry: unknown }> } {
  const translations = new Map<Locale, { code: string; entry: unknown }>()
  if (raw === undefined) return { source: null, translations }
  if (!isObject(raw)) {
    report.ignore('translation_invalid', PATH)
    return { source: null, translations }
  }
  let source: Locale | null = null
  if (raw.source_language !== undefined) {
    source = typeof raw.source_language === 'string' ? localeOfCode(raw.source_language) : null
    if (source === null) report.ignore('language_unknown', `${PATH}.source_language`)
  }
  if (raw.translations === undefined) return { source, translations }
  if (!isObject(raw.translations)) {
    report.ignore('translation_invalid', `${PATH}.translations`)
    return { source, translations }
  }
  const exact = new Set<Locale>()
  for (const [code, entry] of Object.entries(raw.translations)) {
    const locale = localeOfCode(code)
    if (locale === null) {
      report.ignore('language_unknown', `${PATH}.translations.${code}`)
      continue
    }
    // Two codes for one locale (`zh` and `zh-cn`): the exact one wins, else the first.
    const isExact = code.toLowerCase() === locale
    const before = translations.get(locale)
    if (before && (exact.has(locale) || !isExact)) {
      report.ignore('translation_invalid', `${PATH}.translations.${code}`)
      continue
    }
    if (before) report.ignore('translation_invalid', `${PATH}.translations.${before.code}`)
    translations.set(locale, { code, entry })
    if (isExact) exact.add(locale)
  }
  return { source, translations }
}

/** `creator_notes_multilingual` split into our locales' notes (exact codes first) and the others, kept verbatim. */
function splitNotes(notes: Record<string, string> | undefined) {
  const known = new Map<Locale, { code: string; text: string }>()
  const others: Record<string, string> = {}
  for (const [code, text] of Object.entries(notes ?? {})) {
    const locale = localeOfCode(code)
    const current = locale ? known.get(locale) : undefined
    // Two codes for one locale (`zh` and `zh-CN`): the exact one wins, else the first.
    if (locale === null || clean(text) === '' || (current && code.toLowerCase() !== locale)) {
      others[code] = text
      continue
    }
    if (current) others[current.code] = current.text
    known.set(locale, { code, text })
  }
  return { known, others }
}

/**
 * The language the card's texts are written in: what our extension says; else the language of the
 * note equal to `creator_notes` (the importer's own first); else `en` when the card has notes but
 * none in `en` (the V3 spec: `creator_notes` is then the `en` note); else `fallback`.
 */
function sourceOf(
  stated: Locale | null,
  draft: CharacterDraft,
  known: Map<Locale, { text: string }>,
  fallback: Locale,
): Locale {
  if (stated) return stated
  const notes = clean(draft.creatorNotes)
  const matching = [...known].filter(([, note]) => notes !== '' && clean(note.text) === notes).map(([l]) => l)
  if (matching.length > 0) return matching.includes(fallback) ? fallback : (matching[0] as Locale)
  const hasNotes = Object.keys(draft.creatorNotesMultilingual ?? {}).length > 0
  if (hasNotes && !known.has('en')) return 'en'
  return fallback
}

/**
 * Reads the card's languages into the draft (after its data fields were read): `sourceLanguage`,
 * `translations` (our extension's, with the multilingual notes as their introductions: a note
 * differing from the extension's text was edited by another tool after we wrote both, so it wins),
 * `creatorNotesMultilingual` left with the codes that are none of our locales, and `taleweave`
 * taken out of `extensions`. `fallback` is the importer's language.
 */
export function readCardLanguages(draft: CharacterDraft, report: Report, fallback: Locale) {
  const { [EXTENSION]: raw, ...extensions } = draft.extensions
  draft.extensions = extensions
  const extension = readExtension(raw, report)
  const { known, others } = splitNotes(draft.creatorNotesMultilingual)
  const source = sourceOf(extension.source, draft, known, fallback)

  const translations: CardTranslations = {}
  for (const [locale, { code, entry }] of extension.translations) {
    const path = `${PATH}.translations.${code}`
    const translation = translationOf(entry)
    if (locale === source || translation === null || !usable(translation)) {
      report.ignore('translation_invalid', path)
      continue
    }
    translations[locale] = translation
  }

  for (const [locale, { code, text }] of known) {
    const note = clean(text)
    if (locale === source) {
      // The source's own note is its introduction: used when `creator_notes` is empty.
      if (clean(draft.creatorNotes) === '') draft.creatorNotes = text
      else if (note !== clean(draft.creatorNotes)) report.ignore('translation_invalid', `${NOTES}.${code}`)
      continue
    }
    const empty: CardTranslation = {
      name: null,
      introduction: '',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    }
    const translation = { ...(translations[locale] ?? empty), introduction: note }
    if (!usable(translation)) {
      // Too long for an introduction: not a translation here, but exported again as it came.
      report.ignore('translation_invalid', `${NOTES}.${code}`)
      others[code] = text
      continue
    }
    translations[locale] = translation
  }

  draft.sourceLanguage = source
  draft.translations = translations
  draft.creatorNotesMultilingual = Object.keys(others).length > 0 ? others : undefined
}

/**
 * `creator_notes_multilingual` of an export: the notes kept from the card, the source's
 * introduction and each translation's, keyed by our locale codes (lower case; `zh-cn` and `zh-tw`
 * as they are, since ISO 639-1's `zh` cannot tell the two scripts apart). Undefined when empty.
 */
export function multilingualNotesOf(draft: CharacterDraft): Record<string, string> | undefined {
  const notes: Record<string, string> = { ...draft.creatorNotesMultilingual }
  if (draft.creatorNotes !== '') notes[draft.sourceLanguage] = draft.creatorNotes
  for (const locale of LOCALES) {
    const introduction = draft.translations[locale]?.introduction
    if (introduction) notes[locale] = introduction
  }
  return Object.keys(notes).length > 0 ? notes : undefined
}

/** `extensions.taleweave` of an export: the source language and every translation, in locale order. */
export function taleweaveExtensionOf(draft: CharacterDraft): { [EXTENSION]: Json } {
  const translations: Json = {}
  for (const locale of LOCALES) {
    const t = draft.translations[locale]
    if (!t) continue
    translations[locale] = {
      ...(t.name === null ? {} : { name: t.name }),
      introduction: t.introduction,
      scenario: t.scenario,
      first_message: t.firstMessage,
      alternate_greetings: t.alternateGreetings,
    }
  }
  return { [EXTENSION]: { source_language: draft.sourceLanguage, translations } }
}
