import i18next, { type TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
import { ApiError } from '#app/lib/http.ts'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import { LOCALES } from '#contracts/locales.ts'
import type { RoleTexts, RoleTranslation } from '#contracts/role-texts.ts'
import edit from '#locales/en/characters-edit.json' with { type: 'json' }
import common from '#locales/en/common.json' with { type: 'json' }
import ja from '#locales/ja/characters-edit.json' with { type: 'json' }
import {
  draftFailure,
  draftOf,
  fillDraft,
  hasEmptyField,
  hasText,
  localesToAdd,
  problemsOfDraft,
  refusedFields,
  sameDraft,
  textsOf,
} from './translation-state.ts'

const i18n = i18next.createInstance()
void i18n.init({
  lng: 'en',
  resources: { en: { common, 'characters-edit': edit }, ja: { 'characters-edit': ja } },
  defaultNS: 'common',
  initAsync: false,
})
const tCommon = i18n.t as unknown as TFunction
const t = i18n.getFixedT('en', 'characters-edit') as unknown as TFunction<'characters-edit'>

const source: RoleTexts = {
  name: 'Orla Finch',
  introduction: 'A lighthouse keeper.',
  scenario: '',
  firstMessage: 'Come in out of the rain.',
  alternateGreetings: ['Another letter washed up.', 'The lamp needs oil.', 'Tea?'],
}

const machine: RoleTranslation = {
  locale: 'ja',
  origin: 'machine',
  stale: true,
  texts: {
    name: null,
    introduction: '灯台守。',
    scenario: '',
    firstMessage: '雨の中から入って。',
    alternateGreetings: ['', 'ランプに油が要る。', '', '余分'],
  },
  updatedAt: '2026-11-25T00:00:00Z',
}

describe('the translation editor’s fields', () => {
  it('line the greetings up with the source’s: one field each, extra ones dropped', () => {
    expect(draftOf(machine, source)).toEqual({
      name: '',
      introduction: '灯台守。',
      scenario: '',
      firstMessage: '雨の中から入って。',
      alternateGreetings: ['', 'ランプに油が要る。', ''],
    })
    expect(draftOf(null, source).alternateGreetings).toEqual(['', '', ''])
  })

  it('send trimmed texts, no name when none is given, empty greetings kept inside and dropped at the end', () => {
    const draft = {
      ...draftOf(null, source),
      name: '  ',
      introduction: ' 灯台守。 ',
      alternateGreetings: ['', ' ランプ ', ''],
    }
    expect(textsOf(draft)).toEqual({
      name: null,
      introduction: '灯台守。',
      scenario: '',
      firstMessage: '',
      alternateGreetings: ['', 'ランプ'],
    })
    expect(textsOf({ ...draft, name: ' オルラ ' }).name).toBe('オルラ')
  })

  it('find what the server would refuse: nothing at all, or a text past its limit', () => {
    expect(problemsOfDraft(draftOf(null, source))).toEqual([{ path: 'texts', code: 'required' }])
    const long = { ...draftOf(machine, source), scenario: 'x'.repeat(CHARACTER_LIMITS.scenario + 1) }
    expect(problemsOfDraft(long)).toEqual([
      { path: 'texts.scenario', code: 'too_long', limit: CHARACTER_LIMITS.scenario },
    ])
  })

  it('know whether anything is typed, whether a field the model could fill is empty, and whether they changed', () => {
    const empty = draftOf(null, source)
    expect(hasText(empty)).toBe(false)
    expect(hasText({ ...empty, name: 'オルラ' })).toBe(true)
    expect(hasEmptyField(empty, source)).toBe(true)
    // The scenario is empty in the source too: nothing for the model to fill there.
    const full = {
      ...empty,
      introduction: 'a',
      firstMessage: 'b',
      alternateGreetings: ['c', 'd', 'e'],
    }
    expect(hasEmptyField(full, source)).toBe(false)
    expect(sameDraft(full, { ...full, introduction: ' a ' })).toBe(true)
    expect(sameDraft(full, { ...full, introduction: 'z' })).toBe(false)
  })
})

describe('the model’s draft put into the fields', () => {
  const model = {
    introduction: '灯台守です。',
    scenario: '',
    firstMessage: '雨から入って。',
    alternateGreetings: ['また手紙が。', 'ランプの油。', 'お茶？'],
  }
  const typed = { ...draftOf(null, source), introduction: '私の訳', alternateGreetings: ['', '自分で', ''] }

  it('fills only the empty fields, keeping what the user wrote', () => {
    expect(fillDraft(typed, model, 'empty')).toEqual({
      name: '',
      introduction: '私の訳',
      scenario: '',
      firstMessage: '雨から入って。',
      alternateGreetings: ['また手紙が。', '自分で', 'お茶？'],
    })
  })

  it('replaces every field the model gave a text for, and never blanks one it left empty', () => {
    const filled = fillDraft({ ...typed, scenario: '嵐' }, { ...model, name: 'オルラ' }, 'all')
    expect(filled).toEqual({
      name: 'オルラ',
      introduction: '灯台守です。',
      scenario: '嵐',
      firstMessage: '雨から入って。',
      alternateGreetings: ['また手紙が。', 'ランプの油。', 'お茶？'],
    })
    // No name offered: the user's stays.
    expect(fillDraft({ ...typed, name: 'オルラ' }, model, 'all').name).toBe('オルラ')
  })
})

describe('the languages a translation may be added in', () => {
  it('are every locale but the source language and those already translated', () => {
    const left = localesToAdd('en', [{ locale: 'ja' }, { locale: 'ar' }])
    expect(left).toHaveLength(LOCALES.length - 3)
    expect(left).not.toContain('en')
    expect(left).not.toContain('ja')
    expect(left).toContain('de')
  })
})

describe('the words for what went wrong', () => {
  it('keeps the field problems a refused save names, and nothing else', () => {
    const refused = new ApiError(400, 'VALIDATION_ERROR', 'Some fields are not valid.', [
      { path: 'texts.introduction', code: 'too_long', limit: 2000, message: 'too_long', in: 'body' },
      { path: 'locale', code: 'source_language', in: 'body' },
      { path: 'roleId', message: 'Required', in: 'body' },
    ])
    expect(refusedFields(refused).map((p) => `${p.path} ${p.code}`)).toEqual([
      'texts.introduction too_long',
      'locale source_language',
    ])
    expect(refusedFields(new ApiError(500, 'INTERNAL_ERROR', 'x'))).toEqual([])
  })

  it('says when no model can translate, whatever the model failure', () => {
    for (const code of ['MODEL_UNAVAILABLE', 'MODEL_UNREACHABLE', 'MODEL_OVERLOADED', 'SERVICE_UNAVAILABLE']) {
      expect(draftFailure(t, tCommon, 'en', new ApiError(503, code, 'x'))).toBe(edit.languages.draftUnavailable)
    }
  })

  it('says when to ask again after too many, in the page’s language', () => {
    const limited = new ApiError(429, 'RATE_LIMITED', 'x', { retryAfterSeconds: 600 })
    expect(draftFailure(t, tCommon, 'en', limited)).toBe(
      'You asked for many translations in a short time. Try again in 10 minutes.',
    )
    const tJa = i18n.getFixedT('ja', 'characters-edit') as unknown as TFunction<'characters-edit'>
    expect(draftFailure(tJa, tCommon, 'ja', limited)).toContain('10 分後')
    expect(draftFailure(t, tCommon, 'en', new ApiError(429, 'RATE_LIMITED', 'x'))).toBe(edit.languages.draftRateLimited)
  })

  it('uses the common words for other refusals, and its own for a failing server or line', () => {
    expect(draftFailure(t, tCommon, 'en', new ApiError(403, 'FORBIDDEN', 'x'))).toBe(common.apiErrors.FORBIDDEN)
    expect(draftFailure(t, tCommon, 'en', new ApiError(408, 'TIMEOUT', 'x'))).toBe(edit.languages.draftFailed)
    expect(draftFailure(t, tCommon, 'en', new Error('boom'))).toBe(edit.languages.draftFailed)
  })
})
