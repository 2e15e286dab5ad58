import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import { v2Card } from '#tests/factories/card-files.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  saveCharacterForm,
  screenshotDir,
  seriousA11yViolations,
  shootFromTop,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Issue 21 items 2 and 6 in a browser: a card with many tags and a long introduction goes into
// the editor and saves without edits; a card over the limits opens with its fields marked.

const creator = { username: 'cardcarrier', email: 'cardcarrier@example.test', password: 'twenty tags and a long note' }

const THEMES = Array.from({ length: 17 }, (_, i) => `Theme ${i + 1}`)
/** 20 distinct tags once case and spacing are set aside (the first three are one, matched to the site's). */
const manyTags = ['Fantasy', 'FANTASY', ' fantasy ', 'Slow  Burn', 'slow burn', 'Sci-Fi', ...THEMES]
const longNote = 'Credits, content notes and a guide to the card. '.repeat(260).trim()

const jsonFile = (card: unknown, name: string) => ({
  name,
  mimeType: 'application/json',
  buffer: Buffer.from(JSON.stringify(card)),
})

describe.skipIf(!chromiumPath)('cards with many tags and long texts in the editor (issue 21)', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [creator] }))
  })
  afterAll(() => stopServerAndBrowser(server, browser))

  async function signedInPage(lang: 'en' | 'ar'): Promise<{ page: Page; problems: string[] }> {
    const { page, errors: problems } = await personPage(browser, server.url, {
      viewport: { width: 1366, height: 1000 },
    })
    // React reports duplicate keys (two chips of one tag) on the console.
    page.on('console', (message) => {
      if (message.type() === 'error' && /same key/i.test(message.text())) problems.push(message.text())
    })
    await logIn(page, server.url, creator)
    await page.goto(`${server.url}${lang === 'ar' ? '/ar' : ''}/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    return { page, problems }
  }

  it('imports a card with 20 tags and a 12k introduction, shows the tags compactly and saves it without edits', async () => {
    const { page, problems } = await signedInPage('en')
    expect(longNote.length).toBeGreaterThan(12_000)
    const card = v2Card({ name: 'Wren Tallow', tags: manyTags, creator_notes: longNote })
    await page.getByTestId('card-file').setInputFiles(jsonFile(card, 'wren.json'))
    const report = page.getByTestId('import-report')
    await report.getByText('The card was read. Check the form, then save.').waitFor()
    expect(await report.getByTestId('import-problems').count()).toBe(0)
    expect(await page.getByLabel('Detailed introduction').inputValue()).toBe(longNote)
    expect(await page.getByTestId('error-character-introduction').count()).toBe(0)

    // One chip per tag: the site's Fantasy once, whatever the card's case; 12 shown, "+8 more".
    const chips = page.getByTestId('chosen-tags')
    const toggle = page.getByTestId('chosen-tags-toggle')
    await toggle.getByText('+8 more').waitFor()
    expect(await chips.locator('li:visible').count()).toBe(13)
    await toggle.click()
    expect(await chips.locator('li:visible').count()).toBe(21)
    const names = await chips.locator('li bdi').allInnerTexts()
    expect(names).toHaveLength(20)
    expect(names.filter((name) => name.toLowerCase() === 'fantasy')).toEqual(['Fantasy'])
    expect(names).toContain('Slow Burn')
    await toggle.getByText('Show fewer').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await shootFromTop(page, 'card-limits-import-en.png', { fullPage: true })

    await saveCharacterForm(page)
    await page.getByRole('heading', { level: 1, name: 'Wren Tallow' }).waitFor()
    const roleUrl = page.url()
    const tags = page.getByTestId('role-tags')
    await tags.getByRole('button', { name: '+12 more' }).waitFor()
    // All 20 links are in the page (hidden ones too, for crawlers); 8 are shown.
    expect(await tags.locator('a').count()).toBe(20)
    expect(await tags.locator('a:visible').count()).toBe(8)
    await tags.getByRole('button', { name: '+12 more' }).click()
    expect(await tags.locator('a:visible').count()).toBe(20)
    await page.screenshot({ path: path.join(screenshotDir, 'card-limits-page-en.png') })

    // The same page in Arabic: tags laid out right to left, the toggle in Arabic.
    await page.goto(roleUrl.replace('/characters/', '/ar/characters/'))
    await page.waitForFunction(HYDRATED)
    const arTags = page.getByTestId('role-tags')
    await arTags.getByRole('button', { name: '+12 أخرى' }).click()
    expect(await arTags.locator('a:visible').count()).toBe(20)
    await page.screenshot({ path: path.join(screenshotDir, 'card-limits-page-ar.png') })
    expect(problems).toEqual([])
    await page.context().close()
  })

  for (const lang of ['en', 'ar'] as const) {
    it(`opens a card over the limits with its fields marked and the report saying so (${lang})`, async () => {
      const { page, problems } = await signedInPage(lang)
      const tags = Array.from({ length: CHARACTER_LIMITS.tags + 5 }, (_, i) => `Genre ${i + 1}`)
      const card = v2Card({
        name: 'Oversized',
        tags,
        creator_notes: 'n'.repeat(CHARACTER_LIMITS.introduction + 10),
      })
      await page.getByTestId('card-file').setInputFiles(jsonFile(card, 'oversized.json'))
      const listed = page.getByTestId('import-problems')
      await listed.waitFor()
      // Marked on open, before any save: the same words the save would give.
      const introError = page.getByTestId('error-character-introduction')
      await introError.waitFor()
      const introText = await introError.innerText()
      expect(await listed.innerText()).toContain(introText)
      await page.getByTestId('error-tags').waitFor()
      expect((await page.locator('#character-introduction').inputValue()).length).toBe(
        CHARACTER_LIMITS.introduction + 10,
      )
      if (lang === 'en') {
        expect(introText).toBe('Too long: at most 20,000 characters.')
        expect(await listed.innerText()).toContain('Detailed introduction: Too long: at most 20,000 characters.')
        expect(await listed.innerText()).toContain('Tags: Too many: at most 40.')
      }
      expect(await page.getByTestId('import-report').innerText()).not.toContain(
        'Everything in the card was read as it was.',
      )
      await shootFromTop(page, `card-limits-over-${lang}.png`, { fullPage: true })
      expect(problems).toEqual([])
      await page.context().close()
    })
  }
})
