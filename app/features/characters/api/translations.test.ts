import type { AddressInfo } from 'node:net'
import i18next, { type TFunction } from 'i18next'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '#app/lib/http.ts'
import edit from '#locales/en/characters-edit.json' with { type: 'json' }
import common from '#locales/en/common.json' with { type: 'json' }
import { sourceHashOf } from '#server/modules/role-texts/role-texts.service.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { draftFailure, draftOf, fillDraft, textsOf } from '../translation-state.ts'
import { listTranslations } from './list-translations.ts'
import { removeTranslation } from './remove-translation.ts'
import { saveTranslation } from './save-translation.ts'
import { translateDraft } from './translate-draft.ts'

const i18n = i18next.createInstance()
void i18n.init({
  lng: 'en',
  resources: { en: { common, 'characters-edit': edit } },
  defaultNS: 'common',
  initAsync: false,
})
const tCommon = i18n.t as unknown as TFunction
const t = i18n.getFixedT('en', 'characters-edit') as unknown as TFunction<'characters-edit'>

const source = {
  name: 'Orla Finch',
  introduction: 'A lighthouse keeper who collects lost letters.',
  scenario: 'A storm is coming to the headland.',
  firstMessage: 'Come in out of the rain, {{user}}.',
  alternateGreetings: ['Another letter washed up today.', 'The lamp needs oil.'],
}

/** One answer of the draft endpoint, as `POST /api/role/translate-draft` sends it (ADR 040's contract). */
type DraftAnswer = { status: number; body: unknown }

// The editor's client in Node against the real server over a real socket (as app/lib/http.test.ts
// does): the translations routes are the real ones. `POST /api/role/translate-draft` (ADR 040; its
// own tests in server/modules/role-texts run it against the model double) is answered here, before
// its handler, by a stand-in that speaks its contract and passes its response schema: signed-in callers only, body `{ roleId, locale }`, answer `{ texts }` in the
// API envelope or an error envelope. It records what the client sent.
describe('the editor’s translation client', () => {
  let t0: TestApp
  let origin = ''
  let token = ''
  let strangerToken = ''
  let roleId = ''
  const storage = new Map<string, string>()
  const answers: DraftAnswer[] = []
  const received: { body: unknown; userId: string | null }[] = []

  beforeAll(async () => {
    t0 = await buildTestApp({
      configure: async (app) => {
        app.addHook('onRequest', async (request, reply) => {
          if (request.method !== 'POST' || request.url !== '/api/role/translate-draft') return
          let raw = ''
          for await (const chunk of request.raw) raw += chunk
          received.push({ body: JSON.parse(raw), userId: request.userId ?? null })
          if (!request.userId) {
            return reply.code(401).send({ code: 401, success: false, error: 'UNAUTHORIZED', message: 'Log in first.' })
          }
          const answer = answers.shift() ?? {
            status: 500,
            body: { code: 500, success: false, error: 'INTERNAL_ERROR' },
          }
          return reply.code(answer.status).send(answer.body)
        })
      },
    })
    await t0.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(t0.app.server.address() as AddressInfo).port}`
    const owner = await t0.login()
    token = owner.token
    strangerToken = (await t0.login()).token
    roleId = await createRole(t0.database.db, { ...source, creatorId: owner.user.id })
  })
  afterAll(() => t0?.close())

  beforeEach(() => {
    storage.clear()
    storage.set('token', token)
    answers.length = 0
    received.length = 0
    vi.stubGlobal('window', {
      location: { origin, pathname: '/ja/characters/edit/form', search: `?id=${roleId}`, assign: vi.fn() },
      localStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
    })
  })
  afterEach(() => vi.unstubAllGlobals())

  it('saves what the editor holds, lists it, and removes it', async () => {
    expect(await listTranslations(roleId)).toEqual({ roleId, sourceLanguage: 'en', translations: [] })
    const draft = {
      ...draftOf(null, source),
      introduction: ' 迷子の手紙を集める灯台守。 ',
      alternateGreetings: ['', 'ランプに油が要る。'],
    }
    const saved = await saveTranslation(roleId, 'ja', textsOf(draft))
    expect(saved.translations).toEqual([
      expect.objectContaining({
        locale: 'ja',
        origin: 'author',
        stale: false,
        texts: {
          name: null,
          introduction: '迷子の手紙を集める灯台守。',
          scenario: '',
          firstMessage: '',
          alternateGreetings: ['', 'ランプに油が要る。'],
        },
      }),
    ])
    expect(await listTranslations(roleId)).toEqual(saved)
    // Opened again, the editor lines the saved greetings up with the source's.
    expect(draftOf(saved.translations[0] ?? null, source).alternateGreetings).toEqual(['', 'ランプに油が要る。'])

    const removed = await removeTranslation(roleId, 'ja')
    expect(removed.translations).toEqual([])
    expect((await listTranslations(roleId)).translations).toEqual([])
  })

  it('makes a machine translation the creator’s when saved from the editor', async () => {
    const { roleTexts } = t0.app.services
    const role = await roleTexts.sourceOf(roleId)
    expect(role?.sourceHash).toBe(sourceHashOf(source))
    await roleTexts.saveMachineTranslation(
      roleId,
      'de',
      { name: null, introduction: 'Eine Leuchtturmwärterin.', scenario: '', firstMessage: '', alternateGreetings: [] },
      'an older hash',
    )
    const before = (await listTranslations(roleId)).translations.find((x) => x.locale === 'de')
    expect(before).toMatchObject({ origin: 'machine', stale: true })
    const after = await saveTranslation(roleId, 'de', textsOf(draftOf(before ?? null, source)))
    expect(after.translations.find((x) => x.locale === 'de')).toMatchObject({ origin: 'author', stale: false })
    await removeTranslation(roleId, 'de')
  })

  it('brings back the refusals the editor words: nothing to save, the source language, someone else’s', async () => {
    const empty = await saveTranslation(roleId, 'ja', textsOf(draftOf(null, source))).catch((e: unknown) => e)
    expect(empty).toBeInstanceOf(ApiError)
    expect((empty as ApiError).details).toEqual([expect.objectContaining({ path: 'texts', code: 'required' })])
    const own = await saveTranslation(roleId, 'en', { ...textsOf(draftOf(null, source)), introduction: 'x' }).catch(
      (e: unknown) => e,
    )
    expect((own as ApiError).details).toEqual([expect.objectContaining({ path: 'locale', code: 'source_language' })])
    storage.set('token', strangerToken)
    const theirs = await listTranslations(roleId).catch((e: unknown) => e)
    expect(theirs).toMatchObject({ code: 403, error: 'FORBIDDEN' })
  })

  it('asks the draft endpoint for the saved texts in one locale and fills the fields from its answer', async () => {
    answers.push({
      status: 200,
      body: {
        code: 0,
        success: true,
        message: 'ok',
        data: {
          texts: {
            introduction: '迷子の手紙を集める灯台守。',
            scenario: '岬に嵐が近づいている。',
            firstMessage: '雨の中から入って、{{user}}。',
            alternateGreetings: ['今日も手紙が流れ着いた。', 'ランプに油が要る。'],
          },
          untranslated: [],
        },
      },
    })
    const texts = await translateDraft(roleId, 'ja')
    expect(received).toEqual([{ body: { roleId, locale: 'ja' }, userId: expect.any(String) }])
    const typed = { ...draftOf(null, source), scenario: '自分の訳' }
    expect(fillDraft(typed, texts, 'empty')).toEqual({
      name: '',
      introduction: '迷子の手紙を集める灯台守。',
      scenario: '自分の訳',
      firstMessage: '雨の中から入って、{{user}}。',
      alternateGreetings: ['今日も手紙が流れ着いた。', 'ランプに油が要る。'],
    })
  })

  it('turns the draft endpoint’s refusals into the editor’s words', async () => {
    answers.push(
      {
        status: 429,
        body: {
          code: 429,
          success: false,
          error: 'RATE_LIMITED',
          message: 'Too many attempts.',
          details: { retryAfterSeconds: 120 },
        },
      },
      {
        status: 503,
        body: {
          code: 503,
          success: false,
          error: 'MODEL_UNAVAILABLE',
          message: 'No model.',
          details: { chatModelId: 'x' },
        },
      },
    )
    const limited = await translateDraft(roleId, 'ja').catch((e: unknown) => e)
    expect(draftFailure(t, tCommon, 'en', limited)).toBe(
      'You asked for many translations in a short time. Try again in 2 minutes.',
    )
    const down = await translateDraft(roleId, 'ja').catch((e: unknown) => e)
    expect(draftFailure(t, tCommon, 'en', down)).toBe(edit.languages.draftUnavailable)
  })
})
