import path from 'node:path'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  logIn,
  openCharacterEditor,
  PERSON_USER_AGENT,
  personPage,
  type RunningServer,
  saveCharacterForm,
  screenshotDir,
  seriousA11yViolations,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// The editor's Languages section (issue 20, ADR 039): the language a character is written in, and
// its translations added, edited side by side with the original, filled by the model and removed.

const creator = { username: 'tidewriter', email: 'tidewriter@example.test', password: 'salt on the window glass' }

const source = {
  name: 'Orla Finch',
  introduction: 'A lighthouse keeper who collects the letters the sea brings in.',
  scenario: 'A storm is coming to the headland, and {{user}} knocks at the door.',
  firstMessage: '*She opens the door.* Come in out of the rain, {{user}}.',
  alternateGreetings: ['Another letter washed up today.', 'The lamp needs oil. Hold this.'],
}

/** What the creator types themselves: the introduction. The model fills the rest. */
const typedIntroduction = '海が運んでくる手紙を集める灯台守。'
const modelTexts = {
  introduction: '（モデルの紹介文）',
  scenario: '岬に嵐が近づき、{{user}}が扉をたたく。',
  firstMessage: '*彼女は扉を開ける。* 雨の中から入って、{{user}}。',
  alternateGreetings: ['今日もまた手紙が流れ着いた。', 'ランプの油が切れそう。これを持っていて。'],
}

const envelope = (data: unknown) => JSON.stringify({ code: 0, success: true, message: 'ok', data })

/** A character of the creator's, made through the API as the form would. */
const createSourceCharacter = (url: string, token: string, name: string) =>
  createCharacter(url, token, {
    name,
    introduction: source.introduction,
    scenario: source.scenario,
    firstMessage: source.firstMessage,
    alternateGreetings: source.alternateGreetings,
    sourceLanguage: 'en',
  })

/**
 * A picture of one part of the page as laid out in full: the sticky top bar and the form's sticky
 * save bar are put back in the flow for the picture, so they do not cover the part.
 */
async function shootPart(page: Page, selector: string, file: string) {
  const clip = await page.locator(selector).evaluate((element) => {
    for (const node of document.querySelectorAll<HTMLElement>('body *')) {
      if (getComputedStyle(node).position === 'sticky') {
        node.dataset.wasSticky = '1'
        node.style.position = 'static'
      }
    }
    const box = element.getBoundingClientRect()
    return { x: box.left + window.scrollX, y: box.top + window.scrollY, width: box.width, height: box.height }
  })
  await page.screenshot({ path: file, fullPage: true, clip })
  await page.evaluate(() => {
    for (const node of document.querySelectorAll<HTMLElement>('[data-was-sticky]')) {
      node.style.position = ''
      delete node.dataset.wasSticky
    }
  })
}

async function openEditor(page: Page, url: string, roleId: string, locale = '') {
  await openCharacterEditor(page, url, roleId, { locale, readySelector: '#character-sourceLanguage' })
  await page.getByTestId('translations').or(page.getByTestId('translation-editor')).waitFor()
}

describe.skipIf(!chromiumPath)('the Languages section of the character editor', () => {
  let server: RunningServer
  let browser: Browser
  let session: Awaited<ReturnType<BrowserContext['storageState']>> | undefined
  let token = ''
  let roleId = ''

  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [creator] }))
    token = await apiLogin(server.url, creator)
    roleId = await createSourceCharacter(server.url, token, source.name)
  })
  afterAll(() => stopServerAndBrowser(server, browser))

  it('adds a Japanese translation, typed and filled by the model, saves it, lists it and removes another', async () => {
    const { context, page, errors } = await personPage(browser, server.url, { viewport: { width: 1366, height: 1000 } })

    // The draft endpoint (ADR 040) is answered here, by its contract: first "no model", then a
    // draft after a moment (so the busy state shows). Each call is checked for what it sends.
    const asked: { body: unknown; auth: string | undefined }[] = []
    let release: () => void = () => {}
    const answers = [
      (route: Route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ code: 503, success: false, error: 'MODEL_UNAVAILABLE', message: 'No model' }),
        }),
      async (route: Route) => {
        await new Promise<void>((resolve) => {
          release = resolve
        })
        await route.fulfill({ status: 200, contentType: 'application/json', body: envelope({ texts: modelTexts }) })
      },
    ]
    await page.route('**/api/role/translate-draft', async (route) => {
      asked.push({ body: route.request().postDataJSON(), auth: route.request().headers().authorization })
      await answers.shift()?.(route)
    })

    await logIn(page, server.url, creator)
    await openEditor(page, server.url, roleId)
    const section = page.locator('section[aria-labelledby="languages-title"]')
    expect(await page.locator('#character-sourceLanguage').inputValue()).toBe('en')
    await section.getByText('No translations yet.').waitFor()

    // Add Japanese: the editor opens in place of the list, with focus on its title.
    await section.getByLabel('Add a language').selectOption('ja')
    await section.getByTestId('add-translation').click()
    const editor = page.getByTestId('translation-editor')
    await editor.getByRole('heading', { name: 'Japanese translation' }).waitFor()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('translation-editor-title')
    // The original beside each field, in its language; the fields in Japanese.
    await expect.poll(() => editor.locator('#translation-source-introduction').textContent()).toBe(source.introduction)
    expect(await editor.locator('#translation-source-introduction').getAttribute('lang')).toBe('en')
    expect(await editor.locator('#translation-introduction').getAttribute('lang')).toBe('ja')
    expect(await editor.locator('#translation-greeting-1').getAttribute('lang')).toBe('ja')
    expect(await editor.getByRole('textbox', { name: /^Greeting \d/ }).count()).toBe(2)

    // Type the introduction, then ask the model: it says no model can translate now.
    await editor.getByLabel('Detailed introduction').fill(typedIntroduction)
    await editor.getByTestId('translate-with-model').click()
    const ask = page.getByRole('dialog', { name: 'Translate with the model' })
    await ask.getByRole('button', { name: 'Fill the empty fields' }).click()
    await editor
      .getByTestId('draft-error')
      .getByText('No model can translate right now. Try again later, or write the translation yourself.')
      .waitFor()

    // Again: busy while the model works, then only the empty fields are filled.
    await editor.getByTestId('translate-with-model').click()
    await ask.getByRole('button', { name: 'Fill the empty fields' }).click()
    await editor.getByRole('button', { name: 'Translating...' }).waitFor()
    expect(await editor.getAttribute('aria-busy')).toBe('true')
    expect(await editor.getByTestId('translate-with-model').isDisabled()).toBe(true)
    await editor.getByTestId('draft-status').getByText('The model is translating.', { exact: false }).waitFor()
    release()
    await editor
      .getByTestId('draft-status')
      .getByText('The model’s translation is in the fields.', { exact: false })
      .waitFor()
    expect(asked).toEqual([
      { body: { roleId, locale: 'ja' }, auth: expect.stringMatching(/^Bearer .+/) },
      { body: { roleId, locale: 'ja' }, auth: expect.stringMatching(/^Bearer .+/) },
    ])
    expect(await editor.getByLabel('Detailed introduction').inputValue()).toBe(typedIntroduction)
    expect(await editor.getByLabel('Scenario').inputValue()).toBe(modelTexts.scenario)
    expect(await editor.getByLabel('First message').inputValue()).toBe(modelTexts.firstMessage)
    expect(await editor.getByRole('textbox', { name: 'Greeting 2' }).inputValue()).toBe(
      modelTexts.alternateGreetings[1],
    )
    // Nothing is stored until Save.
    const before = await fetch(`${server.url}/api/role/translations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ roleId }),
    })
    expect(((await before.json()) as { data: { translations: unknown[] } }).data.translations).toEqual([])
    expect(await seriousA11yViolations(page)).toEqual([])

    // Enter in the name field does not submit the character form around the editor.
    await editor.getByLabel('Name (optional)').fill('オルラ・フィンチ')
    await editor.getByLabel('Name (optional)').press('Enter')
    await page.waitForTimeout(300)
    expect(page.url()).toContain('/characters/edit/form')
    await editor.getByTestId('save-translation').click()

    // Listed as the creator's, with focus back on its Edit button.
    const item = section.getByTestId('translation-ja')
    await item.getByText('By you').waitFor()
    await item.getByText('日本語').waitFor()
    expect(await item.getByText('日本語').getAttribute('lang')).toBe('ja')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('translation-edit-ja')
    await page.getByText('The Japanese translation was saved.').waitFor()

    // Editing again shows what was saved; Escape closes it and gives focus back.
    await item.getByRole('button', { name: 'Edit the Japanese translation' }).click()
    expect(await editor.getByLabel('Scenario').inputValue()).toBe(modelTexts.scenario)
    expect(await editor.getByLabel('Name (optional)').inputValue()).toBe('オルラ・フィンチ')
    await page.keyboard.press('Escape')
    await item.waitFor()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('translation-edit-ja')

    // A second language, typed by hand, then removed after confirming.
    await section.getByLabel('Add a language').selectOption('fr')
    await section.getByTestId('add-translation').click()
    await editor.getByLabel('First message').fill('*Elle ouvre la porte.* Entrez, {{user}}, il pleut.')
    await editor.getByTestId('save-translation').click()
    const french = section.getByTestId('translation-fr')
    await french.waitFor()
    await french.getByRole('button', { name: 'Remove the French translation' }).click()
    const confirm = page.getByRole('dialog', { name: 'Remove the French translation?' })
    await confirm.getByTestId('confirm-remove-translation').click()
    await french.waitFor({ state: 'detached' })
    await section.getByTestId('translation-ja').waitFor()
    // Japanese is no longer offered; French is again.
    const offered = await section
      .getByLabel('Add a language')
      .locator('option')
      .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value))
    expect(offered).toContain('fr')
    expect(offered).not.toContain('ja')
    expect(offered).not.toContain('en')
    expect(errors).toEqual([])
    session = await context.storageState()
    await context.close()
  })

  it('saves the language a character is written in with the form; a new one starts in the interface’s', async () => {
    const other = await createSourceCharacter(server.url, token, 'Kaspar Holm')
    const context = await browser.newContext({
      userAgent: PERSON_USER_AGENT,
      viewport: { width: 1366, height: 1000 },
      storageState: session,
    })
    const page = await context.newPage()
    await openEditor(page, server.url, other)
    await page.getByLabel('Written in').selectOption('de')
    await page.getByText('The new language applies when you save the character.').waitFor()
    expect(await page.locator('#character-name').getAttribute('lang')).toBe('de')
    await saveCharacterForm(page)
    const res = await fetch(`${server.url}/api/my/roles/${other}?locale=en`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(((await res.json()) as { data: { form: { sourceLanguage: string } } }).data.form.sourceLanguage).toBe('de')

    await page.goto(`${server.url}/ja/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('#character-sourceLanguage').inputValue()).toBe('ja')
    await page.getByText('キャラクターを保存すると、ここでほかの言語のテキストを追加できます。').waitFor()
    await context.close()
  })

  it('lays the section out in English, Arabic and Japanese, on a desktop and a phone', {
    timeout: 300_000,
  }, async () => {
    // The original changes: the Japanese translation is marked stale (in the list and the editor).
    const form = new FormData()
    for (const [key, value] of Object.entries({
      ...source,
      introduction: `${source.introduction} She never reads them.`,
    })) {
      for (const v of Array.isArray(value) ? value : [value]) form.append(key, v)
    }
    form.append('visibility', 'public')
    form.append('isAdult', 'false')
    const put = await fetch(`${server.url}/api/roles/${roleId}?locale=en`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    })
    expect(put.status).toBe(200)
    for (const viewport of [
      { name: 'desktop', width: 1366, height: 1000 },
      { name: 'mobile', width: 390, height: 844 },
    ]) {
      for (const locale of ['en', 'ar', 'ja']) {
        const context = await browser.newContext({
          userAgent: PERSON_USER_AGENT,
          viewport: { width: viewport.width, height: viewport.height },
          storageState: session,
        })
        await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
        const page = await context.newPage()
        await openEditor(page, server.url, roleId, locale === 'en' ? '' : locale)
        expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr')
        const section = page.locator('section[aria-labelledby="languages-title"]')
        await section.getByTestId('translation-ja').waitFor()
        await section.scrollIntoViewIfNeeded()
        const shot = (what: string) =>
          path.join(screenshotDir, `characters-languages-${what}-${locale}-${viewport.name}.png`)
        await section.screenshot({ path: shot('list') })

        await page.locator('#translation-edit-ja').click()
        const editor = page.getByTestId('translation-editor')
        await editor.waitFor()
        // Side by side on a desktop, the original above each field on a phone.
        const original = await editor.locator('#translation-source-introduction').boundingBox()
        const field = await editor.locator('#translation-introduction').boundingBox()
        expect(original && field).toBeTruthy()
        if (original && field) {
          if (viewport.name === 'desktop') {
            expect(Math.abs(original.y - field.y)).toBeLessThan(60)
            // The original comes first in the reading direction.
            expect(locale === 'ar' ? original.x > field.x : original.x < field.x).toBe(true)
          } else {
            expect(original.y + original.height).toBeLessThanOrEqual(field.y)
          }
        }
        expect(await seriousA11yViolations(page)).toEqual([])
        await shootPart(page, 'section[aria-labelledby="languages-title"]', shot('editor'))
        await context.close()
      }
    }
  })

  it('shows the Japanese translation on the character page in /ja', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1366, height: 1000 } })
    await context.addCookies([{ name: 'lang', value: 'ja', url: server.url }])
    const page = await context.newPage()
    await page.goto(`${server.url}/ja/characters/${roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByText(typedIntroduction).first().waitFor({ timeout: 10_000 })
    await page.getByRole('heading', { level: 1, name: 'オルラ・フィンチ' }).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'characters-languages-page-ja.png') })
    await context.close()
  })
})
