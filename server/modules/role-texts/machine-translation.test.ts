import { sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import type { Locale } from '#contracts/locales.ts'
import type { RoleTranslationList } from '#contracts/role-texts.ts'
import type { ChatMessageBody } from '#tests/doubles/openai-api.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { jobKey, utcDay } from './machine-translation.ts'

// Issue 20 item 3 (ADR 040) against a model double that speaks the Chat Completions protocol and
// "translates" deterministically: the target language's code in brackets, then the text in capitals
// with its macros untouched. What the app stores is checked against the same transform.

const MACRO = /(\{\{\s*(?:char|user)\s*\}\}|<(?:bot|user)>)/gi
const LANGUAGES: Record<string, string> = { Japanese: 'ja', German: 'de', French: 'fr', Korean: 'ko' }
const CHAT_REPLY = 'The sea is calm tonight, and the lamp burns steady over the rocks below the tower.'

function translated(text: string, locale: string) {
  return `〔${locale}〕${text
    .split(MACRO)
    .map((part, i) => (i % 2 ? part : part.toUpperCase()))
    .join('')}`
}
function fakeTranslation(messages: ChatMessageBody[]): string {
  const system = String(messages[0]?.content ?? '')
  const language = /into ([A-Za-z]+)/.exec(system)?.[1] ?? ''
  return translated(String(messages.at(-1)?.content ?? ''), LANGUAGES[language] ?? '?')
}

type Session = Awaited<ReturnType<TestApp['login']>>
type JobRow = { attempts: number; run_at: string | Date; failed_at: unknown; last_error: string | null }

const mara = {
  name: 'Mara',
  introduction: 'A lighthouse keeper on a stormy coast. *She waves from the gallery.*',
  scenario: '{{user}} arrives at the lighthouse at night, soaked.',
  firstMessage: '"Come in, {{user}}," says {{char}}. "The kettle is on."',
  alternateGreetings: ['Back again, {{user}}?', ''],
}

function harness(env: Record<string, string>) {
  const h = {
    api: undefined as unknown as OpenAiApiDouble,
    t: undefined as unknown as TestApp,
    logs: [] as { msg: string; [key: string]: unknown }[],
    /** What the double answers a translation request (a chat reply streams CHAT_REPLY). */
    translate: fakeTranslation as (messages: ChatMessageBody[]) => string,
  }
  beforeAll(async () => {
    h.api = await startOpenAiApi({ reply: (messages, body) => (body.stream ? CHAT_REPLY : h.translate(messages)) })
    h.t = await buildTestApp({
      env: {
        MODELS_FILE: writeModelsFile([
          { id: 'tavern-8b', premium: false, contextTokens: 4096, baseUrl: h.api.baseUrl },
        ]),
        LLM_TIMEOUT_MS: '5000',
        // On with the default budget (the test app turns it off for other tests).
        TRANSLATE_DAILY_CHARACTERS: '2000000',
        ...env,
      },
      // The test runs the jobs itself.
      jobQueue: { worker: false, retryDelayMs: () => 60_000 },
      logStream: { write: (text: string) => void h.logs.push(JSON.parse(text)) },
    })
  })
  afterEach(() => {
    h.translate = fakeTranslation
    if (h.api) {
      expect(h.api.pendingFaults).toEqual([])
      h.api.tokenDelayMs = 0
      h.api.firstTokenDelayMs = 0
    }
  })
  afterAll(async () => {
    await h.t?.close()
    await h.api?.close()
  })
  return h
}

/** Helpers over one harness. */
function using(h: ReturnType<typeof harness>) {
  const services = () => h.t.app.services
  const rowsOf = (result: unknown) => (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows)
  return {
    services,
    async jobOf(roleId: string, locale: Locale): Promise<JobRow | undefined> {
      const result = await h.t.database.db.execute(
        sql`SELECT attempts, run_at, failed_at, last_error FROM jobs WHERE key = ${jobKey(roleId, locale)} ORDER BY id DESC LIMIT 1`,
      )
      return rowsOf(result)[0] as JobRow | undefined
    },
    async usedToday(): Promise<number> {
      const result = await h.t.database.db.execute(
        sql`SELECT characters FROM translation_usage WHERE day = ${utcDay(new Date())}`,
      )
      const row = rowsOf(result)[0] as { characters: number | string } | undefined
      return Number(row?.characters ?? 0)
    },
    /** What a visitor in `locale` is shown of the role, telling the listeners as the page does. */
    async show(roleId: string, locale: Locale) {
      const texts = services().roleTexts
      const role = await texts.sourceOf(roleId)
      if (!role) throw new Error(`no role ${roleId}`)
      const shown = await texts.localize(role, locale)
      texts.noteShown(role, locale, shown)
      return shown
    },
    post: (url: string, payload: object, session: Session | null) =>
      h.t.app.inject({
        method: 'POST',
        url,
        payload,
        headers: session ? { authorization: `Bearer ${session.token}` } : {},
      }),
    async list(roleId: string, owner: Session): Promise<RoleTranslationList> {
      const res = await h.t.injectWithLogin(
        { method: 'POST', url: '/api/role/translations', payload: { roleId } },
        owner,
      )
      expect(res.statusCode).toBe(200)
      return res.json().data
    },
    translationRequests: () => h.api.requests.filter((r) => !r.stream),
  }
}

/** A multipart body as a browser's FormData sends it. */
async function multipart(fields: Record<string, string | string[]>) {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) form.append(key, v)
  }
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

describe('machine translation of a character (ADR 040)', () => {
  const h = harness({ TRANSLATE_AHEAD_LOCALES: 'de' })
  const u = using(h)
  let owner: Session
  beforeAll(async () => {
    owner = await h.t.login()
  })

  /** Edits the role's introduction through the editor's route, as its creator. */
  async function editIntroduction(roleId: string, introduction: string) {
    const body = await multipart({
      ...mara,
      introduction,
      alternateGreetings: mara.alternateGreetings.filter(Boolean),
      visibility: 'public',
      isAdult: 'false',
    })
    const res = await h.t.app.inject({
      method: 'PUT',
      url: `/api/roles/${roleId}`,
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${owner.token}` },
    })
    expect(res.statusCode, res.body).toBe(200)
  }

  it('a public character shown in Japanese is translated by the job, one plain request per text', async () => {
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    const before = await u.show(roleId, 'ja')
    expect(before.translation).toBeNull()
    expect(before.language).toBe('en')
    await expect.poll(() => u.jobOf(roleId, 'ja')).toMatchObject({ attempts: 0, failed_at: null })

    h.api.reset()
    await u.services().jobs.drain()
    const role = await u.services().roleTexts.sourceOf(roleId)
    if (!role) throw new Error('role missing')
    const after = await u.services().roleTexts.localize(role, 'ja')
    expect(after.translation).toEqual({ origin: 'machine', stale: false })
    expect(after.language).toBe('ja')
    expect(after.texts).toEqual({
      name: 'Mara',
      introduction: translated(mara.introduction, 'ja'),
      scenario: translated(mara.scenario, 'ja'),
      firstMessage: translated(mara.firstMessage, 'ja'),
      alternateGreetings: [translated('Back again, {{user}}?', 'ja'), ''],
    })
    // Each text alone, as plain text, with the instruction naming both languages; the name is not sent.
    const requests = u.translationRequests()
    expect(requests.map((r) => r.messages.at(-1)?.content)).toEqual([
      mara.introduction,
      mara.scenario,
      mara.firstMessage,
      'Back again, {{user}}?',
    ])
    for (const request of requests) {
      expect(request.messages).toHaveLength(2)
      expect(request.messages[0]?.role).toBe('system')
      expect(String(request.messages[0]?.content)).toContain('from English into Japanese (日本語)')
      expect(request.max_tokens).toBeGreaterThan(0)
    }
    // The creator's list of translations shows it as the job's.
    const listed = (await u.list(roleId, owner)).translations.find((x) => x.locale === 'ja')
    expect(listed).toMatchObject({ origin: 'machine', stale: false, texts: { name: null } })

    // Shown again, it is fresh: nothing more is queued.
    await u.show(roleId, 'ja')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await u.jobOf(roleId, 'ja')).toBeUndefined()
    // Its own language and private characters are never queued.
    await u.show(roleId, 'en')
    const hidden = await createRole(h.t.database.db, { ...mara, visibility: 'private', creatorId: owner.user.id })
    await u.show(hidden, 'ja')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await u.jobOf(roleId, 'en')).toBeUndefined()
    expect(await u.jobOf(hidden, 'ja')).toBeUndefined()
  })

  it('a source edit marks the machine translation stale, and the job replaces it with one of the new texts', async () => {
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    await u.show(roleId, 'ja')
    await expect.poll(() => u.jobOf(roleId, 'ja')).toBeTruthy()
    await u.services().jobs.drain()

    const introduction = 'A lighthouse keeper who has not seen a ship in a year.'
    await editIntroduction(roleId, introduction)
    const ja = (await u.list(roleId, owner)).translations.find((x) => x.locale === 'ja')
    expect(ja).toMatchObject({ origin: 'machine', stale: true })
    // Queued again by the change, with the ahead locale (TRANSLATE_AHEAD_LOCALES=de).
    await expect.poll(() => u.jobOf(roleId, 'ja')).toBeTruthy()
    await expect.poll(() => u.jobOf(roleId, 'de')).toBeTruthy()
    await u.services().jobs.drain()
    const list = (await u.list(roleId, owner)).translations
    expect(list.find((x) => x.locale === 'ja')).toMatchObject({
      origin: 'machine',
      stale: false,
      texts: { introduction: translated(introduction, 'ja') },
    })
    expect(list.find((x) => x.locale === 'de')).toMatchObject({
      origin: 'machine',
      stale: false,
      texts: { introduction: translated(introduction, 'de') },
    })
  })

  it('an edit while the job translates: what it stored is stale, and the job runs again on the new texts', async () => {
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    await u.services().jobs.enqueue('translate-role', { roleId, locale: 'ja' }, { key: jobKey(roleId, 'ja') })
    h.api.reset()
    h.api.firstTokenDelayMs = 300
    const draining = u.services().jobs.drain()
    await expect.poll(() => u.translationRequests().length).toBeGreaterThan(0)
    const introduction = 'A keeper who turned the light off for good.'
    await editIntroduction(roleId, introduction)
    await draining
    // The job stored what it translated (stale at once) and was put back, not counted, to run again;
    // the same drain may already have run it again (it waited one second behind the ahead job).
    expect(h.logs.some((l) => l.msg === 'job deferred' && String(l.reason).includes('source texts changed'))).toBe(true)
    if (await u.jobOf(roleId, 'ja')) {
      expect(await u.jobOf(roleId, 'ja')).toMatchObject({ attempts: 0, failed_at: null })
      expect(await u.services().jobs.retryNow(jobKey(roleId, 'ja'))).toBe(true)
      await u.services().jobs.drain()
    }
    const intros = u
      .translationRequests()
      .map((r) => r.messages.at(-1)?.content)
      .filter((text) => text === mara.introduction || text === introduction)
    expect(intros).toEqual([mara.introduction, introduction, introduction])
    expect((await u.list(roleId, owner)).translations.find((x) => x.locale === 'ja')).toMatchObject({
      origin: 'machine',
      stale: false,
      texts: { introduction: translated(introduction, 'ja') },
    })
  })

  it("never overwrites the author's translation; a source change only marks it stale", async () => {
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    const mine = { introduction: 'Une gardienne de phare.', scenario: '', firstMessage: 'Entrez, {{user}}.' }
    const saved = await h.t.injectWithLogin(
      { method: 'POST', url: '/api/role/translations/save', payload: { roleId, locale: 'fr', texts: mine } },
      owner,
    )
    expect(saved.statusCode).toBe(200)
    h.api.reset()
    // Queued anyway (a page shown before the author saved): the job leaves it alone.
    await u.services().jobs.enqueue('translate-role', { roleId, locale: 'fr' }, { key: jobKey(roleId, 'fr') })
    await u.services().jobs.drain()
    expect(u.translationRequests()).toEqual([])
    expect((await u.list(roleId, owner)).translations.find((x) => x.locale === 'fr')).toMatchObject({
      origin: 'author',
      texts: mine,
    })

    await editIntroduction(roleId, 'A keeper of a lighthouse that no ship needs any more.')
    await expect.poll(() => u.jobOf(roleId, 'de')).toBeTruthy()
    expect(await u.jobOf(roleId, 'fr')).toBeUndefined()
    await u.services().jobs.drain()
    expect((await u.list(roleId, owner)).translations.find((x) => x.locale === 'fr')).toMatchObject({
      origin: 'author',
      stale: true,
      texts: mine,
    })
  })

  it('keeps {{user}} and {{char}}: an answer that loses one is asked once more, then the source text is kept', async () => {
    // The first answer to the first message drops its macros; the second keeps them.
    let firstMessageAsked = 0
    h.translate = (messages) => {
      const text = String(messages.at(-1)?.content)
      if (text === mara.firstMessage && ++firstMessageAsked === 1) {
        return fakeTranslation(messages).replaceAll('{{user}}', 'vous').replaceAll('{{char}}', 'elle')
      }
      return fakeTranslation(messages)
    }
    const once = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    await u.services().jobs.enqueue('translate-role', { roleId: once, locale: 'ko' }, { key: jobKey(once, 'ko') })
    await u.services().jobs.drain()
    expect(firstMessageAsked).toBe(2)
    const ko = (await u.list(once, owner)).translations.find((x) => x.locale === 'ko')
    expect(ko?.texts.firstMessage).toBe(translated(mara.firstMessage, 'ko'))

    // Always lost: that text stays untranslated (the page shows the source's), the others are stored.
    h.translate = (messages) =>
      String(messages.at(-1)?.content) === mara.scenario ? 'Vous arrivez au phare la nuit.' : fakeTranslation(messages)
    const never = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    h.api.reset()
    await u.services().jobs.enqueue('translate-role', { roleId: never, locale: 'ko' }, { key: jobKey(never, 'ko') })
    await u.services().jobs.drain()
    expect(u.translationRequests().filter((r) => r.messages.at(-1)?.content === mara.scenario)).toHaveLength(2)
    const kept = (await u.list(never, owner)).translations.find((x) => x.locale === 'ko')
    expect(kept?.texts).toMatchObject({ scenario: '', introduction: translated(mara.introduction, 'ko') })
    const role = await u.services().roleTexts.sourceOf(never)
    if (!role) throw new Error('role missing')
    expect((await u.services().roleTexts.localize(role, 'ko')).texts.scenario).toBe(mara.scenario)
    expect(h.logs.some((l) => l.msg.includes('not usable') && l.path === 'scenario' && l.problem === 'macros')).toBe(
      true,
    )
  })

  it('cleans what the model adds: a label, quotes around the answer, its reasoning', async () => {
    h.translate = (messages) => `<think>Translate it.</think>\nTranslation:\n"${fakeTranslation(messages)}"`
    const roleId = await createRole(h.t.database.db, {
      name: 'Ilse',
      introduction: 'A clockmaker.',
      firstMessage: '',
      scenario: '',
      creatorId: owner.user.id,
    })
    await u.services().jobs.enqueue('translate-role', { roleId, locale: 'de' }, { key: jobKey(roleId, 'de') })
    await u.services().jobs.drain()
    const de = (await u.list(roleId, owner)).translations.find((x) => x.locale === 'de')
    expect(de?.texts.introduction).toBe(translated('A clockmaker.', 'de'))
  })

  it('gives way to a reply being written on the same model: the job waits, not counted, and runs after it', async () => {
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    const user = await h.t.login()
    const created = await u.post('/api/createSession', { roleId }, user)
    const sessionId = created.json().data.id as string
    h.api.reset()
    h.api.tokenDelayMs = 40
    const reply = u.post('/api/chat', { sessionId, message: 'Hello?', chatModelId: 'tavern-8b' }, user)
    await expect
      .poll(() => h.api.timings.some((x) => x.firstTokenAt !== undefined && x.doneAt === undefined))
      .toBe(true)

    await u.services().jobs.enqueue('translate-role', { roleId, locale: 'ja' }, { key: jobKey(roleId, 'ja') })
    await u.services().jobs.drain()
    expect(u.translationRequests()).toEqual([])
    const waiting = await u.jobOf(roleId, 'ja')
    expect(waiting).toMatchObject({ attempts: 0, failed_at: null })
    expect(waiting?.last_error).toMatch(/reply/)
    expect(new Date(waiting?.run_at ?? 0).getTime()).toBeGreaterThan(Date.now())

    expect((await reply).statusCode).toBe(200)
    expect(await u.services().jobs.retryNow(jobKey(roleId, 'ja'))).toBe(true)
    await u.services().jobs.drain()
    expect((await u.list(roleId, owner)).translations.find((x) => x.locale === 'ja')?.origin).toBe('machine')
  })

  it('translates ahead: public characters lacking a TRANSLATE_AHEAD_LOCALES locale get a job', async () => {
    const plain = await createRole(h.t.database.db, { ...mara, popularity: 1000 })
    const secret = await createRole(h.t.database.db, { ...mara, visibility: 'private' })
    const german = await createRole(h.t.database.db, { ...mara, sourceLanguage: 'de' })
    const authored = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
    await h.t.injectWithLogin(
      {
        method: 'POST',
        url: '/api/role/translations/save',
        payload: { roleId: authored, locale: 'de', texts: { introduction: 'Eine Leuchtturmwärterin.' } },
      },
      owner,
    )
    expect(await u.services().jobs.enqueue('translate-ahead', {}, { key: 'translate-ahead:test' })).toBe(true)
    await u.services().jobs.drain()
    const texts = u.services().roleTexts
    const markOf = async (roleId: string) => {
      const role = await texts.sourceOf(roleId)
      if (!role) throw new Error('role missing')
      return (await texts.localize(role, 'de')).translation
    }
    expect(await markOf(plain)).toEqual({ origin: 'machine', stale: false })
    expect(await markOf(secret)).toBeNull()
    expect(await markOf(german)).toBeNull()
    expect(await markOf(authored)).toEqual({ origin: 'author', stale: false })
    // Nothing left to do: a second pass queues nothing.
    expect(await u.services().machineTranslation.queueAhead()).toBe(0)
  })

  describe('POST /api/role/translate-draft', () => {
    let roleId: string
    let privateId: string
    beforeAll(async () => {
      roleId = await createRole(h.t.database.db, { ...mara, creatorId: owner.user.id })
      privateId = await createRole(h.t.database.db, { ...mara, visibility: 'private', creatorId: owner.user.id })
    })
    const draft = (payload: object, session: Session | null) => u.post('/api/role/translate-draft', payload, session)

    it('translates the unsaved texts sent, or the saved ones, and stores nothing', async () => {
      const texts = {
        introduction: 'A keeper of lights.',
        scenario: '',
        firstMessage: 'Hello, {{user}}.',
        alternateGreetings: ['', 'Again, {{user}}?'],
      }
      const res = await draft({ roleId, locale: 'ja', texts }, owner)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json().data).toEqual({
        texts: {
          introduction: translated('A keeper of lights.', 'ja'),
          scenario: '',
          firstMessage: translated('Hello, {{user}}.', 'ja'),
          alternateGreetings: ['', translated('Again, {{user}}?', 'ja')],
        },
        untranslated: [],
      })
      const saved = await draft({ roleId, locale: 'de' }, owner)
      expect(saved.json().data.texts.scenario).toBe(translated(mara.scenario, 'de'))
      // Written in the language the editor says, when it says one.
      h.api.reset()
      await draft({ roleId, locale: 'ja', sourceLanguage: 'fr', texts: { introduction: 'Une gardienne.' } }, owner)
      expect(String(u.translationRequests()[0]?.messages[0]?.content)).toContain('from French (Français) into Japanese')
      expect((await u.list(roleId, owner)).translations).toEqual([])
      // The owner's private character too.
      expect((await draft({ roleId: privateId, locale: 'ja' }, owner)).statusCode).toBe(200)
    })

    it('is for the creator only, and refuses the source language itself', async () => {
      const stranger = await h.t.login()
      expect((await draft({ roleId, locale: 'ja' }, null)).statusCode).toBe(401)
      expect((await draft({ roleId, locale: 'ja' }, stranger)).statusCode).toBe(403)
      expect((await draft({ roleId: privateId, locale: 'ja' }, stranger)).statusCode).toBe(404)
      const own = await draft({ roleId, locale: 'en' }, owner)
      expect(own.statusCode).toBe(400)
      expect(own.json().details).toEqual([expect.objectContaining({ path: 'locale', code: 'source_language' })])
      const long = await draft(
        { roleId, locale: 'ja', texts: { introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1) } },
        owner,
      )
      expect(long.statusCode).toBe(400)
      expect(long.json().details).toEqual([
        expect.objectContaining({ path: 'texts.introduction', code: 'too_long', limit: CHARACTER_LIMITS.introduction }),
      ])
    })

    it('answers 503 TRANSLATION_UNAVAILABLE when the model fails, and 429 after ten drafts an hour', async () => {
      const creator = await h.t.login()
      const own = await createRole(h.t.database.db, { ...mara, creatorId: creator.user.id })
      h.api.fail(500)
      const failed = await draft({ roleId: own, locale: 'ja', texts: { introduction: 'Hi.' } }, creator)
      expect(failed.statusCode).toBe(503)
      expect(failed.json()).toMatchObject({ error: 'TRANSLATION_UNAVAILABLE', details: { reason: 'model' } })
      for (let i = 1; i < 10; i++) {
        expect((await draft({ roleId: own, locale: 'ja', texts: { introduction: 'Hi.' } }, creator)).statusCode).toBe(
          200,
        )
      }
      const limited = await draft({ roleId: own, locale: 'ja', texts: { introduction: 'Hi.' } }, creator)
      expect(limited.statusCode).toBe(429)
      expect(limited.json()).toMatchObject({ error: 'RATE_LIMITED' })
      expect(limited.json().details.retryAfterSeconds).toBeGreaterThan(0)
    })
  })
})

describe('machine translation limits: the daily budget and a model out of reach (ADR 040)', () => {
  const h = harness({ TRANSLATE_DAILY_CHARACTERS: '100' })
  const u = using(h)
  const long = { name: 'Odo', introduction: 'An old ferryman who knows every current of the river. '.repeat(3).trim() }

  it('counts source characters per UTC day in the database; over the budget a job waits for the next day', async () => {
    const first = await createRole(h.t.database.db, long)
    const second = await createRole(h.t.database.db, long)
    const third = await createRole(h.t.database.db, long)
    for (const roleId of [first, second, third]) {
      await u.services().jobs.enqueue('translate-role', { roleId, locale: 'ja' }, { key: jobKey(roleId, 'ja') })
    }
    h.api.reset()
    await u.services().jobs.drain()
    // The first one may cross the budget (a character longer than a day's budget is translated one
    // day); the others wait for the next UTC day, not counted as attempts.
    expect(u.translationRequests()).toHaveLength(1)
    expect(await u.usedToday()).toBe(Array.from(long.introduction).length)
    const nextDay = Date.parse(`${utcDay(new Date(Date.now() + 86_400_000))}T00:00:00Z`)
    for (const roleId of [second, third]) {
      const job = await u.jobOf(roleId, 'ja')
      expect(job).toMatchObject({ attempts: 0, failed_at: null })
      expect(new Date(job?.run_at ?? 0).getTime()).toBeGreaterThanOrEqual(nextDay)
    }
    // Said once in the log, not once per job.
    expect(h.logs.filter((l) => l.msg.includes('daily budget'))).toHaveLength(1)

    // The editor's drafts count against the same budget.
    const creator = await h.t.login()
    const own = await createRole(h.t.database.db, { ...long, creatorId: creator.user.id })
    const draft = await u.post('/api/role/translate-draft', { roleId: own, locale: 'ja' }, creator)
    expect(draft.statusCode).toBe(503)
    expect(draft.json()).toMatchObject({ error: 'TRANSLATION_BUDGET_USED' })
    expect(draft.json().details.retryAfterSeconds).toBeGreaterThan(0)
  })

  it('a model that cannot be reached: the job waits with a growing delay, never fails, and gives the budget back', async () => {
    await h.t.database.db.execute(sql`DELETE FROM translation_usage`)
    await h.t.database.db.execute(sql`DELETE FROM jobs`)
    const roleId = await createRole(h.t.database.db, { name: 'Pim', introduction: 'A baker.' })
    const other = await createRole(h.t.database.db, { name: 'Rue', introduction: 'A fisher.' })
    h.api.reset()
    h.api.fail(503)
    await u.services().jobs.enqueue('translate-role', { roleId, locale: 'ja' }, { key: jobKey(roleId, 'ja') })
    await u.services().jobs.drain()
    expect(u.translationRequests()).toHaveLength(1)
    const waiting = await u.jobOf(roleId, 'ja')
    expect(waiting).toMatchObject({ attempts: 0, failed_at: null })
    expect(new Date(waiting?.run_at ?? 0).getTime()).toBeGreaterThan(Date.now() + 20_000)
    expect(await u.usedToday()).toBe(0)
    expect(h.logs.some((l) => l.msg.includes('cannot be reached') && l.reason === 'overloaded')).toBe(true)

    // Meanwhile other translations wait too, without asking the model.
    await u.services().jobs.enqueue('translate-role', { roleId: other, locale: 'ja' }, { key: jobKey(other, 'ja') })
    await u.services().jobs.drain()
    expect(u.translationRequests()).toHaveLength(1)
    expect(await u.jobOf(other, 'ja')).toMatchObject({ attempts: 0, failed_at: null })
    // The page keeps showing the source, in its language.
    const role = await u.services().roleTexts.sourceOf(roleId)
    if (!role) throw new Error('role missing')
    expect(await u.services().roleTexts.localize(role, 'ja')).toMatchObject({ language: 'en', translation: null })
  })
})

describe('machine translation turned off (TRANSLATE_DAILY_CHARACTERS=0)', () => {
  const h = harness({ TRANSLATE_DAILY_CHARACTERS: '0', TRANSLATE_AHEAD_LOCALES: 'ja' })
  const u = using(h)

  it('queues nothing, translates nothing, and the editor is told', async () => {
    const creator = await h.t.login()
    const roleId = await createRole(h.t.database.db, { ...mara, creatorId: creator.user.id })
    await u.show(roleId, 'ja')
    await u.services().jobs.enqueue('translate-ahead', {}, { key: 'translate-ahead:test' })
    await u.services().jobs.drain()
    expect(await u.jobOf(roleId, 'ja')).toBeUndefined()
    expect(u.translationRequests()).toEqual([])
    const draft = await u.post('/api/role/translate-draft', { roleId, locale: 'ja' }, creator)
    expect(draft.statusCode).toBe(503)
    expect(draft.json()).toMatchObject({ error: 'TRANSLATION_UNAVAILABLE', details: { reason: 'disabled' } })
  })
})
