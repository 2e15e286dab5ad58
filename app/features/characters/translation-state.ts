import type { TFunction } from 'i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatWait } from '#app/lib/format.ts'
import { isApiError } from '#app/lib/http.ts'
import { FIELD_PROBLEM_CODES, type FieldProblem } from '#contracts/characters.ts'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import {
  checkTranslationTexts,
  type RoleTexts,
  type RoleTranslation,
  type TranslationTexts,
} from '#contracts/role-texts.ts'
import type { DraftTexts } from './api/translate-draft.ts'

/**
 * The logic of the translation editor, without React (ADR 039): a translation as the editor holds
 * it, what it sends, how the model's draft fills it and how failures read. Unit-tested beside it.
 */

/** The fields of a translation, as typed: one greeting per source greeting, '' where untranslated. */
export type TranslationDraft = {
  name: string
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
}

/** The texts a translation has besides the name, in the order the editor shows them. */
export const TRANSLATED_TEXTS = ['introduction', 'scenario', 'firstMessage'] as const

/**
 * The editor's fields for `translation` (null: a new one) of `source`: the greetings line up with
 * the source's, one field each (a translated greeting past the source's last is dropped: the page
 * would never show it).
 */
export function draftOf(translation: RoleTranslation | null, source: RoleTexts): TranslationDraft {
  const texts = translation?.texts
  return {
    name: texts?.name ?? '',
    introduction: texts?.introduction ?? '',
    scenario: texts?.scenario ?? '',
    firstMessage: texts?.firstMessage ?? '',
    alternateGreetings: source.alternateGreetings.map((_, i) => texts?.alternateGreetings[i] ?? ''),
  }
}

/**
 * What is sent to `/api/role/translations/save`: trimmed, no name when none is given (the source's
 * is shown), greetings by their place with empty ones kept inside (so the others stay aligned) and
 * dropped at the end.
 */
export function textsOf(draft: TranslationDraft): TranslationTexts {
  const greetings = draft.alternateGreetings.map((g) => g.trim())
  while (greetings.length > 0 && greetings.at(-1) === '') greetings.pop()
  return {
    name: draft.name.trim() || null,
    introduction: draft.introduction.trim(),
    scenario: draft.scenario.trim(),
    firstMessage: draft.firstMessage.trim(),
    alternateGreetings: greetings,
  }
}

/** The problems the server would find: too long by field (`texts.<field>`), or nothing at all (`texts`). */
export function problemsOfDraft(draft: TranslationDraft): FieldProblem[] {
  return checkTranslationTexts(textsOf(draft))
}

/** Whether the user has typed anything the draft would replace. */
export function hasText(draft: TranslationDraft): boolean {
  const { name, introduction, scenario, firstMessage, alternateGreetings } = draft
  return [name, introduction, scenario, firstMessage, ...alternateGreetings].some((text) => text.trim() !== '')
}

/** Whether some field the model could fill (where the source has text) is still empty. */
export function hasEmptyField(draft: TranslationDraft, source: RoleTexts): boolean {
  return (
    TRANSLATED_TEXTS.some((field) => source[field].trim() !== '' && draft[field].trim() === '') ||
    source.alternateGreetings.some((g, i) => g.trim() !== '' && (draft.alternateGreetings[i] ?? '').trim() === '')
  )
}

export function sameDraft(a: TranslationDraft, b: TranslationDraft): boolean {
  return JSON.stringify(textsOf(a)) === JSON.stringify(textsOf(b))
}

/**
 * The model's texts put into the draft: `empty` fills only what is empty (keeping what the user
 * wrote), `all` replaces every field the model gave a text for. The name changes only when the
 * model offers one. Nothing the model left empty overwrites anything.
 */
export function fillDraft(draft: TranslationDraft, model: DraftTexts, mode: 'empty' | 'all'): TranslationDraft {
  const pick = (mine: string, theirs: string | null | undefined) => {
    const offered = theirs?.trim() ?? ''
    if (!offered) return mine
    return mode === 'all' || mine.trim() === '' ? offered : mine
  }
  return {
    name: pick(draft.name, model.name),
    introduction: pick(draft.introduction, model.introduction),
    scenario: pick(draft.scenario, model.scenario),
    firstMessage: pick(draft.firstMessage, model.firstMessage),
    alternateGreetings: draft.alternateGreetings.map((g, i) => pick(g, model.alternateGreetings[i])),
  }
}

/** The locales a new translation may be made into: not the source language, not one already there. */
export function localesToAdd(sourceLanguage: Locale, translations: { locale: Locale }[]): Locale[] {
  const taken = new Set<Locale>([sourceLanguage, ...translations.map((t) => t.locale)])
  return LOCALES.filter((locale) => !taken.has(locale))
}

/** Field problems of a refused save (VALIDATION_ERROR details the form words), if any. */
export function refusedFields(error: unknown): FieldProblem[] {
  if (!isApiError(error, 'VALIDATION_ERROR') || !Array.isArray(error.details)) return []
  return error.details.filter(
    (d): d is FieldProblem =>
      typeof d.path === 'string' && (FIELD_PROBLEM_CODES as readonly (string | undefined)[]).includes(d.code),
  )
}

/**
 * Why "Translate with the model" failed, in the user's words: no model can translate now, too many
 * asks (with when to try again when the server says), else the common words for the code.
 */
export function draftFailure(
  t: TFunction<'characters-edit'>,
  tCommon: TFunction,
  locale: Locale,
  error: unknown,
): string {
  const limited = (details: { retryAfterSeconds?: number } | undefined) =>
    details?.retryAfterSeconds
      ? t('languages.draftRateLimitedFor', { when: formatWait(locale, details.retryAfterSeconds) })
      : t('languages.draftRateLimited')
  const down = () => t('languages.draftUnavailable')
  return apiErrorMessage(tCommon, error, {
    own: {
      RATE_LIMITED: limited,
      MODEL_RATE_LIMITED: limited,
      MODEL_UNAVAILABLE: down,
      MODEL_UNREACHABLE: down,
      MODEL_OVERLOADED: down,
      MODEL_PREPARING: down,
      MODEL_NOT_FOUND: down,
      MODEL_CREDENTIALS_REFUSED: down,
      MODEL_ERROR: down,
      MODEL_REPLY_ONLY_REASONING: down,
      SERVICE_UNAVAILABLE: down,
    },
    otherwise: t('languages.draftFailed'),
  })
}
