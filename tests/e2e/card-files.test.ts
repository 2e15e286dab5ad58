import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  logIn,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startServer,
} from './browser.ts'

// Issue 21 item 5 in a browser: a CHARX card's asset files are kept with the character (ADR 047);
// the editor says so, lets the creator remove them, and the save keeps them.

const creator = { username: 'assetkeeper', email: 'assetkeeper@example.test', password: 'five files in one zip' }

/** A CHARX with its icon and four more asset files, made with a zip library (not the product's writer). */
async function charxWithFiles(): Promise<Buffer> {
  const { zipSync, strToU8 } = await import('fflate')
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  )
  const card = {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      name: 'Quill Harrow',
      description: 'A cartographer of lost rooms.',
      personality: '',
      scenario: '',
      first_mes: 'You found the map, then.',
      mes_example: '',
      creator_notes: 'Comes with her expressions.',
      system_prompt: '',
      post_history_instructions: '',
      alternate_greetings: [],
      tags: ['maps'],
      creator: 'someone',
      character_version: '1',
      extensions: {},
      group_only_greetings: [],
      assets: [
        { type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' },
        ...['joy', 'anger', 'sorrow'].map((name) => ({
          type: 'emotion',
          uri: `embeded://assets/emotion/images/${name}.png`,
          name,
          ext: 'png',
        })),
        { type: 'background', uri: 'embeded://assets/background/images/study.png', name: 'study', ext: 'png' },
      ],
    },
  }
  return Buffer.from(
    zipSync({
      'card.json': strToU8(JSON.stringify(card)),
      'assets/icon/images/main.png': png,
      'assets/emotion/images/joy.png': png,
      'assets/emotion/images/anger.png': png,
      'assets/emotion/images/sorrow.png': png,
      'assets/background/images/study.png': png,
    }),
  )
}

describe.skipIf(!chromiumPath)("a card's asset files in the editor", () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    server = await startServer({}, { users: [creator] })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('says how many asset files of a CHARX are kept, saves them, and lays the notice out in English and Arabic', async () => {
    const charx = await charxWithFiles()
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1366, height: 1000 } })
    const page = await context.newPage()
    await logIn(page, server.url, creator)
    for (const lang of ['en', 'ar'] as const) {
      await page.goto(`${server.url}${lang === 'ar' ? '/ar' : ''}/characters/edit/new`)
      await page.waitForFunction(HYDRATED)
      await page
        .getByTestId('card-file')
        .setInputFiles({ name: 'quill.charx', mimeType: 'application/zip', buffer: charx })
      const notice = page.getByTestId('card-files')
      await notice.waitFor()
      if (lang === 'en') {
        expect(await notice.innerText()).toContain('4 more asset files from the card are kept')
      } else {
        expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
        expect(await notice.innerText()).not.toContain('asset files')
      }
      expect(await seriousA11yViolations(page)).toEqual([])
      await notice.scrollIntoViewIfNeeded()
      await page.screenshot({ path: path.join(screenshotDir, `card-files-${lang}.png`) })
    }

    await context.close()

    // Saved with the form (English page), the character's CHARX export carries the four files. A
    // new browser context: no draft kept from the imports above is restored into this form (a
    // restored draft differs from the server's page, and the save then raced hydration under load).
    const saving = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1366, height: 1000 } })
    const page2 = await saving.newPage()
    await logIn(page2, server.url, creator)
    await page2.goto(`${server.url}/characters/edit/new`)
    await page2.waitForFunction(HYDRATED)
    await page2.waitForLoadState('networkidle')
    await page2
      .getByTestId('card-file')
      .setInputFiles({ name: 'quill.charx', mimeType: 'application/zip', buffer: charx })
    await page2.getByTestId('card-files').waitFor()
    await page2.waitForLoadState('networkidle')
    await page2.getByTestId('save-character').click()
    await page2.waitForURL(/\/characters\/[a-z0-9]{12}$/)
    const [download] = await Promise.all([page2.waitForEvent('download'), page2.getByTestId('export-charx').click()])
    expect(download.suggestedFilename()).toBe('Quill_Harrow.charx')
    const { unzipSync } = await import('fflate')
    const files = Object.keys(unzipSync(new Uint8Array(readFileSync((await download.path()) ?? ''))))
    expect(files.filter((f) => f.startsWith('assets/') && !f.startsWith('assets/icon/'))).toHaveLength(4)
    await saving.close()
  }, 120_000)
})
