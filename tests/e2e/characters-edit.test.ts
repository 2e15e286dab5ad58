import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importCard } from '#server/modules/cards/import-card.ts'
import { cardPng, v2Card } from '#tests/factories/card-files.ts'
import {
  chromiumPath,
  HYDRATED,
  PERSON_USER_AGENT,
  type RunningServer,
  saveCharacterForm,
  screenshotDir,
  seriousA11yViolations,
  shootFromTop,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

const localesDir = path.resolve(import.meta.dirname, '..', '..', 'locales')
const creator = { username: 'mapmaker', email: 'mapmaker@example.test', password: 'a compass under the stairs' }

async function avatarPng(): Promise<Buffer> {
  // Named .jpg below: the server goes by the bytes, not the name.
  return sharp({ create: { width: 320, height: 320, channels: 3, background: '#0f766e' } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320"><circle cx="160" cy="140" r="70" fill="#fde68a"/><rect x="70" y="220" width="180" height="100" rx="40" fill="#fbbf24"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer()
}

/** The image has loaded and has pixels (not a broken picture). */
async function imageLoaded(page: Page, selector: string): Promise<boolean> {
  await page.waitForFunction(
    (s) => {
      const img = document.querySelector<HTMLImageElement>(s)
      return Boolean(img?.complete && img.naturalWidth > 0)
    },
    selector,
    { timeout: 10_000 },
  )
  return true
}

describe.skipIf(!chromiumPath)('creating, importing and exporting characters in a browser', () => {
  let server: RunningServer
  let browser: Browser
  /** The signed-in browser storage of the first test, reused by the next. */
  let session: Awaited<ReturnType<Awaited<ReturnType<Browser['newContext']>>['storageState']>> | undefined
  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [creator] }))
  })
  afterAll(() => stopServerAndBrowser(server, browser))

  it('creates a character with an avatar, lists it, imports a V2 PNG card, exports it and re-imports it', async () => {
    const context = await browser.newContext({
      userAgent: PERSON_USER_AGENT,
      viewport: { width: 1366, height: 1000 },
      acceptDownloads: true,
    })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    // Logged out, the page asks for a login and comes back after it.
    await page.goto(`${server.url}/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { name: 'Log in to create characters' }).waitFor()
    await page.getByRole('link', { name: 'Log in' }).last().click()
    await page.waitForURL(/\/login\?redirect_url=%2Fcharacters%2Fedit%2Fnew/)
    await page.waitForFunction(HYDRATED)
    await page.getByLabel('E-mail').fill(creator.email)
    await page.getByLabel('Password').fill(creator.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${server.url}/characters/edit/new`)
    await page.getByRole('heading', { level: 1, name: 'Create a character' }).waitFor()

    // A refused save keeps everything, and so does a reload.
    await page.getByLabel('Detailed introduction').fill('A lighthouse keeper who collects lost letters.')
    await page.getByTestId('save-character').click()
    await page.getByTestId('form-summary').getByText('Some fields need your attention.').waitFor()
    await page.getByTestId('error-character-name').getByText('This field is required.').waitFor()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('character-name')
    await page.waitForTimeout(500)
    await page.reload()
    await page.waitForFunction(HYDRATED)
    await page.getByText('Your unsaved changes were restored.').waitFor()
    expect(await page.getByLabel('Detailed introduction').inputValue()).toBe(
      'A lighthouse keeper who collects lost letters.',
    )

    // Every field, the avatar (a PNG named .jpg), tags old and new, greetings; the preview follows.
    await page.getByLabel('Name').fill('Orla Finch')
    await page.locator('#character-avatar').setInputFiles({
      name: 'orla.jpg',
      mimeType: 'image/jpeg',
      buffer: await avatarPng(),
    })
    await imageLoaded(page, '[data-testid="character-avatar-preview"]')
    await page.getByLabel('Scenario').fill('A storm is coming to the headland.')
    await page.getByLabel('Personality').fill('Patient, curious.')
    await page.getByLabel('Details', { exact: true }).fill('Orla has kept the light for forty years.')
    await page.getByLabel('First message').fill('Come in out of the rain.')
    await page.getByRole('button', { name: 'Add a greeting' }).click()
    await page.getByRole('textbox', { name: 'Greeting 1' }).fill('Another letter washed up today.')
    await page.getByRole('button', { name: 'Fantasy', exact: true }).click()
    await page.getByTestId('tag-input').fill('Lighthouse')
    await page.getByTestId('tag-input').press('Enter')
    const chosen = page.getByTestId('chosen-tags')
    await chosen.getByText('Fantasy').waitFor()
    await chosen.getByText('Lighthouse').waitFor()
    const preview = page.getByTestId('character-preview')
    await preview.getByText('Orla Finch').waitFor()
    // A limit crossed shows at once, by its field.
    await page.getByLabel('Name').fill('x'.repeat(81))
    await page.getByTestId('error-character-name').getByText('Too long: at most 80 characters.').waitFor()
    await page.getByLabel('Name').fill('Orla Finch')
    expect(await seriousA11yViolations(page)).toEqual([])
    await shootFromTop(page, 'characters-edit-new.png', { fullPage: true })

    await saveCharacterForm(page)
    await page.getByRole('heading', { level: 1, name: 'Orla Finch' }).waitFor()
    await page.getByText('By mapmaker').waitFor()
    await page.getByText('Orla has kept the light for forty years.').waitFor()
    await imageLoaded(page, 'img[alt="Orla Finch"]')
    expect(await page.locator('img[alt="Orla Finch"]').getAttribute('src')).toMatch(/^\/api\/public\/images\//)
    await page.getByTestId('edit-character').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'characters-page-created.png'), fullPage: true })

    // Report it through the dialog.
    await page.getByTestId('report-character').click()
    const dialog = page.getByRole('dialog', { name: 'Report Orla Finch' })
    await dialog.getByLabel('Spam or advertising').check()
    await dialog.getByLabel('Details (optional)').fill('Only testing the report form.')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'characters-report-dialog.png') })
    await dialog.getByRole('button', { name: 'Send report' }).click()
    await page.getByText('Thank you. Your report was sent.').waitFor()

    // In My characters, from the sidebar.
    await page.getByRole('link', { name: 'My characters' }).click()
    await page.waitForURL(`${server.url}/characters/mine`)
    const list = page.getByTestId('my-characters')
    await list.getByRole('link', { name: 'Orla Finch', exact: true }).waitFor()
    await list.getByText('Public').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await shootFromTop(page, 'characters-mine.png', { fullPage: true })

    // Import a V2 PNG card: the form is filled and the report shown; saved as a private character.
    await page.getByTestId('create-character').click()
    await page.waitForURL(`${server.url}/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    // The card carries a Japanese translation in our extension (ADR 041): it comes back in the export.
    const ja = {
      name: '地図師ミラ',
      introduction: '長い返信が向いています。',
      scenario: '',
      first_message: 'ようこそ。',
    }
    const taleweave = { source_language: 'en', translations: { ja } }
    const card = cardPng({
      chara: v2Card({ tags: 'fantasy, Cartography', extensions: { mood: 'calm', taleweave } }),
    })
    await page.getByTestId('card-file').setInputFiles({ name: 'mira.png', mimeType: 'image/png', buffer: card })
    const report = page.getByTestId('import-report')
    await report.getByText('The card was read. Check the form, then save.').waitFor()
    await report.getByText('PNG card, version V2').waitFor()
    await report.getByText('Text was turned into a list').waitFor()
    expect(await page.getByLabel('Name').inputValue()).toBe('Mira Vale')
    expect(await page.getByRole('textbox', { name: 'Greeting 2' }).inputValue()).toBe('Another visitor? Sit.')
    await page.getByText('Lorebook: 1 entry, kept from the imported card.').waitFor()
    await imageLoaded(page, '[data-testid="character-avatar-preview"]')
    await page.getByLabel('Private').check()
    expect(await seriousA11yViolations(page)).toEqual([])
    await shootFromTop(page, 'characters-import.png', { fullPage: true })
    await saveCharacterForm(page)
    const miraUrl = page.url()

    // A private character: the server answers 404, the creator's browser loads it with the token.
    await page.reload()
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'Mira Vale' }).waitFor()
    await page.getByText('Only you can see this character.').waitFor()
    expect((await fetch(miraUrl)).status).toBe(404)

    // Export both ways; the PNG carries V2 and V3 chunks and reads back as the same character.
    const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    expect(pngDownload.suggestedFilename()).toBe('Mira_Vale.png')
    const exported = readFileSync((await pngDownload.path()) ?? '')
    expect(exported.includes(Buffer.from('tEXtchara'))).toBe(true)
    expect(exported.includes(Buffer.from('tEXtccv3'))).toBe(true)
    const readBack = importCard(exported)
    expect(readBack.version).toBe('v3')
    expect(readBack.draft).toMatchObject({
      name: 'Mira Vale',
      description: '{{char}} is a cartographer of drowned cities.',
      firstMessage: 'You found my maps? *She smiles.*',
      alternateGreetings: ['The tide is late today.', 'Another visitor? Sit.'],
      creator: 'alice',
      extensions: { mood: 'calm' },
    })
    expect(readBack.draft.characterBook?.entries[0]?.keys).toEqual(['Vell', 'drowned city'])
    expect(readBack.draft.sourceLanguage).toBe('en')
    expect(readBack.draft.translations).toEqual({
      ja: {
        name: ja.name,
        introduction: ja.introduction,
        scenario: '',
        firstMessage: ja.first_message,
        alternateGreetings: [],
      },
    })
    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()])
    expect(jsonDownload.suggestedFilename()).toBe('Mira_Vale.json')
    const json = JSON.parse(readFileSync((await jsonDownload.path()) ?? '', 'utf8'))
    expect(json).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Mira Vale' } })
    // CHARX: card.json and the picture as the main icon; our importer reads it back.
    await page.getByTestId('export-charx').scrollIntoViewIfNeeded()
    await page.screenshot({ path: path.join(screenshotDir, 'characters-export-buttons.png') })
    const [charxDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-charx').click()])
    expect(charxDownload.suggestedFilename()).toBe('Mira_Vale.charx')
    const fromCharx = importCard(readFileSync((await charxDownload.path()) ?? ''))
    expect(fromCharx.draft).toMatchObject({ name: 'Mira Vale', creator: 'alice', extensions: { mood: 'calm' } })
    expect(fromCharx.draft.avatar?.length).toBeGreaterThan(0)
    // The three export buttons right to left.
    await page.goto(`${server.url}/ar${new URL(miraUrl).pathname}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('export-charx').scrollIntoViewIfNeeded()
    await page.screenshot({ path: path.join(screenshotDir, 'characters-export-buttons-ar.png') })

    // Re-import the exported PNG through the form.
    await page.goto(`${server.url}/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    await page
      .getByTestId('card-file')
      .setInputFiles({ name: 'Mira_Vale.png', mimeType: 'image/png', buffer: exported })
    await report.getByText('PNG card, version V3').waitFor()
    expect(await page.getByLabel('Name').inputValue()).toBe('Mira Vale')
    expect(await page.getByLabel('Details', { exact: true }).inputValue()).toBe(
      '{{char}} is a cartographer of drowned cities.',
    )
    expect(await page.getByRole('textbox', { name: 'Greeting 1' }).inputValue()).toBe('The tide is late today.')
    await page.getByText('Lorebook: 1 entry, kept from the imported card.').waitFor()
    const tags = await page.getByTestId('chosen-tags').innerText()
    expect(tags).toContain('Fantasy')
    expect(tags).toContain('Cartography')
    expect(tags).not.toContain('(new)')
    expect(errors).toEqual([])
    session = await context.storageState()
    await context.close()
  })

  // Runs once the page's strings are translated into Arabic (locales/ar/characters-edit.json).
  it.skipIf(!existsSync(path.join(localesDir, 'ar', 'characters-edit.json')))(
    'lays the form and its preview out right to left in Arabic',
    async () => {
      const context = await browser.newContext({
        userAgent: PERSON_USER_AGENT,
        viewport: { width: 1280, height: 900 },
        storageState: session,
      })
      const page = await context.newPage()
      await page.goto(`${server.url}/ar/characters/edit/new`)
      await page.waitForFunction(HYDRATED)
      expect(await page.getAttribute('html', 'dir')).toBe('rtl')
      await page.locator('#character-name').fill('مرسى')
      await page.getByTestId('character-preview').getByText('مرسى').waitFor()
      // The preview sits at the inline end: on the left in a right-to-left page.
      const form = await page.locator('#character-name').boundingBox()
      const preview = await page.getByTestId('character-preview').boundingBox()
      expect(preview && form && preview.x < form.x).toBe(true)
      await page.screenshot({ path: path.join(screenshotDir, 'characters-edit-ar.png') })
      await context.close()
    },
  )
})
