import type { z } from 'zod'
import { CHARACTER_LIMITS, type FieldProblem, textLength } from './characters.ts'
import type { roleTranslationListSchema, roleTranslationSchema, translationTextsSchema } from './role-texts-schemas.ts'

// A character's texts in the visitor's language (issue 20, ADR 039). The source texts are the
// role's own (written in its `sourceLanguage`); a translation overlays them for one locale.

/** Who wrote a translation: the creator or shipped content, or the translation job. */
export const TRANSLATION_ORIGINS = ['author', 'machine'] as const
export type TranslationOrigin = (typeof TRANSLATION_ORIGINS)[number]

/** The texts a character has per language; everything else stays in the source language (model-facing). */
export type RoleTexts = {
  name: string
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
}

/** What a page says about the texts it shows: null when they are the source's own. */
export type TranslationMark = { origin: TranslationOrigin; stale: boolean } | null

/** The texts of a translation as saved: an empty text (or no name) means "the source's". */
export type TranslationTexts = z.infer<typeof translationTextsSchema>
export type RoleTranslation = z.infer<typeof roleTranslationSchema>
export type RoleTranslationList = z.infer<typeof roleTranslationListSchema>

/** The longest each translated text may be: the same as the source field's. */
const TEXT_LIMITS = {
  introduction: CHARACTER_LIMITS.introduction,
  scenario: CHARACTER_LIMITS.scenario,
  firstMessage: CHARACTER_LIMITS.firstMessage,
} as const

/**
 * Checks a translation's texts against the source fields' limits (paths `texts.<field>`,
 * `texts.alternateGreetings.<i>`); a translation with no text at all is `required` at `texts`.
 * The editor and the server refuse the same things.
 */
export function checkTranslationTexts(texts: TranslationTexts): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (texts.name && textLength(texts.name) > CHARACTER_LIMITS.name) {
    problems.push({ path: 'texts.name', code: 'too_long', limit: CHARACTER_LIMITS.name })
  }
  for (const field of ['introduction', 'scenario', 'firstMessage'] as const) {
    if (textLength(texts[field]) > TEXT_LIMITS[field]) {
      problems.push({ path: `texts.${field}`, code: 'too_long', limit: TEXT_LIMITS[field] })
    }
  }
  if (texts.alternateGreetings.length > CHARACTER_LIMITS.greetings) {
    problems.push({ path: 'texts.alternateGreetings', code: 'too_many', limit: CHARACTER_LIMITS.greetings })
  }
  texts.alternateGreetings.forEach((greeting, i) => {
    if (textLength(greeting) > CHARACTER_LIMITS.greeting) {
      problems.push({ path: `texts.alternateGreetings.${i}`, code: 'too_long', limit: CHARACTER_LIMITS.greeting })
    }
  })
  const empty =
    !texts.name &&
    !texts.introduction &&
    !texts.scenario &&
    !texts.firstMessage &&
    !texts.alternateGreetings.some(Boolean)
  if (empty) problems.push({ path: 'texts', code: 'required' })
  return problems
}
