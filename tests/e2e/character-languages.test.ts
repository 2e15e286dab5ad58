import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OpenAiApiDouble } from '#tests/doubles/openai-api.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  startServerAndBrowser,
  startWithModelDouble,
  stopServerAndBrowser,
  stopWithModelDouble,
} from './browser.ts'

// Issue 20 / ADR 039: a Japanese visitor reads a character's Japanese texts on the list, on its
// page and in the chat's greeting; a visitor of a locale without a translation reads the source
// text marked with its language.

const writer = { username: 'kotoba', email: 'kotoba@example.test', password: 'a lantern over the harbour' }

const source = {
  name: 'Seraphine Skyroad',
  introduction: 'A courier who flies wyverns over the Thornteeth Mountains.\n\nShe has never once been late.',
  scenario: '{{user}} carries a sealed letter to a city under siege.',
  firstMessage: '*She tightens the saddle straps.* Hold on tight, {{user}}!',
}
const japanese = {
  name: '飛竜便のセラフィナ',
  introduction: '棘歯山脈を越えて飛竜で手紙を運ぶ運び屋。\n\n一度も遅れたことがない。',
  scenario: '{{user}}は包囲された都市へ封印された手紙を運んでいる。',
  firstMessage: '*鞍の帯を締め直す。* しっかりつかまって、{{user}}！',
  alternateGreetings: [],
}

describe.skipIf(!chromiumPath)("a character in the visitor's language, in a browser", () => {
  let server: RunningServer
  let browser: Browser
  let roleId = ''

  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [writer] }))
    // The writer creates a character in English and translates it into Japanese, through the API.
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: writer.email, password: writer.password }),
    })
    const token = (await login.json()).data.token as string
    const form = new FormData()
    for (const [key, value] of Object.entries({
      ...source,
      visibility: 'public',
      isAdult: 'false',
      sourceLanguage: 'en',
    }))
      form.append(key, value)
    const created = await fetch(`${server.url}/api/addRole`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${token}` },
    })
    expect(created.status).toBe(200)
    roleId = (await created.json()).data.roleId
    const saved = await fetch(`${server.url}/api/role/translations/save`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ roleId, locale: 'ja', texts: japanese }),
    })
    expect(saved.status).toBe(200)
  }, 120_000)
  afterAll(() => stopServerAndBrowser(server, browser))

  async function visitor(lang: string, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport })
    await context.addCookies([{ name: 'lang', value: lang, url: server.url }])
    return context
  }

  it('shows the Japanese name and summary on the list, the source ones marked with their language', async () => {
    const context = await visitor('ja')
    const page = await context.newPage()
    await page.goto(`${server.url}/ja/characters?sort=newest`)
    const card = page.getByRole('link', { name: japanese.name })
    await card.waitFor()
    expect(await card.getAttribute('lang')).toBeNull()
    expect(await page.getByText('棘歯山脈を越えて飛竜で手紙を運ぶ運び屋。').count()).toBe(1)
    // The demo characters in their shipped Japanese (content/characters/i18n/ja.json): no card
    // link or summary is marked as another language.
    await page.getByRole('link', { name: 'レオンティオス・ドラコス' }).waitFor()
    expect(await page.locator('main a[lang], main p[lang]').count()).toBe(0)
    await page.screenshot({ path: path.join(screenshotDir, 'character-languages-list-ja.png') })
    await context.close()

    // An Arabic visitor: the demo characters in Arabic, this one (no Arabic text) in English,
    // its name and summary said to be English.
    const arabic = await visitor('ar')
    const ar = await arabic.newPage()
    await ar.goto(`${server.url}/ar/characters?sort=newest`)
    const own = ar.getByRole('link', { name: source.name })
    await own.waitFor()
    expect(await own.getAttribute('lang')).toBe('en')
    expect(await ar.locator('main p[lang="en"]').count()).toBe(1)
    await ar.getByRole('link', { name: 'ليونتيوس دراكوس' }).first().waitFor()
    await arabic.close()
  })

  it('shows the character page in Japanese, its original on request, and marks English on an Arabic page', async () => {
    const context = await visitor('ja')
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${server.url}/ja/characters/${roleId}`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('h1 bdi').textContent()).toBe(japanese.name)
    expect(await page.locator('h1 bdi').getAttribute('lang')).toBeNull()
    await page.getByText('一度も遅れたことがない。').waitFor()
    // {{user}} as "you" in the text's language; emphasis as emphasis.
    await page.getByText('しっかりつかまって、あなた！').waitFor()
    const note = page.getByTestId('translation-note')
    expect(await note.textContent()).toContain('作成者による翻訳')
    expect(await page.locator('meta[name="description"]').getAttribute('content')).toContain('棘歯山脈')
    expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toContain(japanese.name)
    const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}')
    expect(jsonLd).toMatchObject({ name: japanese.name, inLanguage: 'ja' })
    const hreflangs = await page
      .locator('link[rel="alternate"][hreflang]')
      .evaluateAll((links) => links.map((l) => l.getAttribute('hreflang')))
    expect(hreflangs).toEqual(['en', 'ja', 'x-default'])
    await page.screenshot({ path: path.join(screenshotDir, 'character-languages-page-ja.png'), fullPage: true })

    await note.getByRole('link', { name: '原文を表示' }).click()
    await page.waitForURL((url) => url.search === '?original=1')
    await page.getByText('She has never once been late.').waitFor()
    expect(await page.locator('h1 bdi').getAttribute('lang')).toBe('en')
    expect(await page.getByTestId('translation-note').textContent()).toContain('原文（英語）')
    expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(`${server.url}/characters/${roleId}`)
    await page.getByRole('link', { name: '翻訳を表示' }).click()
    await page.getByText('一度も遅れたことがない。').waitFor()
    expect(errors).toEqual([])
    await context.close()

    // Arabic has no text of its own: the English one, marked English, in the right-to-left page.
    for (const viewport of [
      { width: 1280, height: 900, name: 'desktop' },
      { width: 390, height: 844, name: 'mobile' },
    ]) {
      const arabic = await visitor('ar', viewport)
      const ar = await arabic.newPage()
      await ar.goto(`${server.url}/ar/characters/${roleId}`)
      await ar.waitForFunction(HYDRATED)
      expect(await ar.locator('h1 bdi').getAttribute('lang')).toBe('en')
      expect(await ar.locator('[lang="en"]').filter({ hasText: 'She has never once been late.' }).count()).toBe(1)
      await ar.getByText('Hold on tight, you!').waitFor()
      expect(await ar.getByTestId('translation-note').count()).toBe(0)
      expect(await ar.locator('link[rel="canonical"]').getAttribute('href')).toBe(`${server.url}/characters/${roleId}`)
      await ar.screenshot({
        path: path.join(screenshotDir, `character-languages-page-ar-${viewport.name}.png`),
        fullPage: true,
      })
      await arabic.close()
    }
    const mobile = await visitor('ja', { width: 390, height: 844 })
    const jaMobile = await mobile.newPage()
    await jaMobile.goto(`${server.url}/ja/characters/${roleId}`)
    await jaMobile.waitForFunction(HYDRATED)
    await jaMobile.screenshot({
      path: path.join(screenshotDir, 'character-languages-page-ja-mobile.png'),
      fullPage: true,
    })
    await mobile.close()
  })

  it('greets a Japanese user in Japanese when they start a chat', async () => {
    // Logged in through the English page (the helper's labels), then reading in Japanese.
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await logIn(page, server.url, writer)
    await context.addCookies([{ name: 'lang', value: 'ja', url: server.url }])
    await page.goto(`${server.url}/ja/characters/${roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('start-chat').click()
    await page.waitForURL((url) => /\/ja\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
    const greeting = page.getByTestId('message-assistant').first()
    await greeting.getByText(`しっかりつかまって、${writer.username}！`).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'character-languages-chat-ja.png') })
    await context.close()
  })
})

describe.skipIf(!chromiumPath)('a machine translation, in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let roleId = ''
  const korean = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../locales/ko/catalogue.json'), 'utf8'))

  beforeAll(async () => {
    // The double "translates" by marking the text it was given (the last message), macros kept.
    ;({ server, browser, model } = await startWithModelDouble(
      (messages) => `〔ko〕${String(messages.at(-1)?.content ?? '')}`,
      { env: { TRANSLATE_DAILY_CHARACTERS: '1000000' }, users: [writer] },
    ))
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: writer.email, password: writer.password }),
    })
    const token = (await login.json()).data.token as string
    const form = new FormData()
    for (const [key, value] of Object.entries({
      ...source,
      visibility: 'public',
      isAdult: 'false',
      sourceLanguage: 'en',
    }))
      form.append(key, value)
    const created = await fetch(`${server.url}/api/addRole`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${token}` },
    })
    roleId = (await created.json()).data.roleId
  }, 120_000)
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  it('shows the source marked English first, then the translation the job made, marked as automatic', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 900 } })
    await context.addCookies([{ name: 'lang', value: 'ko', url: server.url }])
    const page = await context.newPage()
    await page.goto(`${server.url}/ko/characters/${roleId}`)
    await page.waitForFunction(HYDRATED)
    // Nothing in Korean yet: the English text, said to be English; the visit queued the job.
    expect(await page.locator('[lang="en"]').filter({ hasText: 'She has never once been late.' }).count()).toBe(1)
    await expect
      .poll(
        async () => {
          await page.reload()
          return page.getByTestId('translation-note').count()
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(1)
    expect(await page.getByTestId('translation-note').textContent()).toContain(korean.translation.machine)
    await page.getByText('〔ko〕A courier who flies wyverns').waitFor()
    expect(model.requests.some((r) => JSON.stringify(r.messages).includes('Korean'))).toBe(true)
    await page.screenshot({ path: path.join(screenshotDir, 'character-languages-machine-ko.png'), fullPage: true })
    await page.getByTestId('translation-note').getByRole('link', { name: korean.translation.showOriginal }).click()
    await page.waitForURL((url) => url.search === '?original=1')
    await page.getByText('She has never once been late.').waitFor()
    await context.close()
  })
})
