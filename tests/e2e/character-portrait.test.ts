import type { Browser, Locator, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tEXt, v2Card } from '#tests/factories/card-files.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  saveCharacterForm,
  shootFromTop,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Issue 21: a 2:3 portrait card's picture is shown whole (head and feet) on the character's page
// and on its catalogue card, not cut to a square (ADR 042).

const creator = { username: 'portraitist', email: 'portraitist@example.test', password: 'a frame around the whole' }
const NAME = 'Tall Wren'

const HEAD = [220, 30, 30]
const FEET = [30, 40, 220]

/**
 * A 400x600 PNG card: a red band on top (the head), a blue band at the bottom (the feet), a figure
 * between, and a V2 `chara` chunk.
 */
async function portraitCard(): Promise<Buffer> {
  const png = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#6b7280' } })
    .composite([
      { input: await band(400, 90, HEAD), left: 0, top: 0 },
      { input: await band(160, 400, [250, 220, 140]), left: 120, top: 100 },
      { input: await band(400, 90, FEET), left: 0, top: 510 },
    ])
    .png()
    .toBuffer()
  const card = tEXt('chara', Buffer.from(JSON.stringify(v2Card({ name: NAME, tags: [] }))).toString('base64'))
  // Before IEND (its last 12 bytes), where card writers put it.
  return Buffer.concat([png.subarray(0, -12), card, png.subarray(-12)])
}

function band(width: number, height: number, [r, g, b]: number[]) {
  return sharp({ create: { width, height, channels: 3, background: { r: r ?? 0, g: g ?? 0, b: b ?? 0 } } })
    .png()
    .toBuffer()
}

/**
 * How a picture shows: its natural size, its box, how it is fitted, and the colours drawn at the
 * top and bottom of the box (from a screenshot of the element).
 */
async function shown(page: Page, picture: Locator) {
  await picture.scrollIntoViewIfNeeded()
  await page.waitForFunction(
    (img) => Boolean(img && (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
    await picture.elementHandle(),
    { timeout: 15_000 },
  )
  const geometry = await picture.evaluate((img: HTMLImageElement) => {
    const box = img.getBoundingClientRect()
    return {
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
      width: box.width,
      height: box.height,
      objectFit: getComputedStyle(img).objectFit,
      src: img.currentSrc,
    }
  })
  // The hover zoom of catalogue cards would crop the screenshot: move the mouse away.
  await page.mouse.move(0, 0)
  const { data, info } = await sharp(await picture.screenshot({ animations: 'disabled' }))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  const at = (fy: number) => {
    const i = (Math.floor(info.height * fy) * info.width + Math.floor(info.width / 2)) * info.channels
    return [data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0]
  }
  return { ...geometry, top: at(0.03), bottom: at(0.97) }
}

const near = (colour: number[], expected: number[]) =>
  colour.every((value, i) => Math.abs(value - (expected[i] ?? 0)) < 40)

function expectWhole(view: Awaited<ReturnType<typeof shown>>, where: string) {
  // The picture served is 2:3, and its box is 2:3 too: object-fit has nothing to cut.
  expect(view.naturalWidth / view.naturalHeight, where).toBeCloseTo(2 / 3, 2)
  expect(view.width / view.height, where).toBeCloseTo(view.naturalWidth / view.naturalHeight, 1)
  // Head and feet are both drawn.
  expect(near(view.top, HEAD), `${where}: top ${view.top}`).toBe(true)
  expect(near(view.bottom, FEET), `${where}: bottom ${view.bottom}`).toBe(true)
}

describe.skipIf(!chromiumPath)('a 2:3 portrait card in a browser', () => {
  let server: RunningServer
  let browser: Browser
  // Seeding and starting the server took 95 s on a two-core machine under a load of 10 (measured
  // alone: the demo avatars' variants add 2-4 s of it): more than the suite's 120 s leaves once
  // Chromium starts too.
  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [creator] }))
  }, 240_000)
  afterAll(() => stopServerAndBrowser(server, browser))

  it('imports it, saves it, and shows the whole figure on its page and its catalogue card (en, ar)', async () => {
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, creator)

    await page.goto(`${server.url}/characters/edit/new`)
    await page.waitForFunction(HYDRATED)
    await page
      .getByTestId('card-file')
      .setInputFiles({ name: 'tall-wren.png', mimeType: 'image/png', buffer: await portraitCard() })
    await page.getByTestId('import-report').getByText('PNG card, version V2').waitFor()
    expect(await page.getByLabel('Name').inputValue()).toBe(NAME)
    // The form shows the picture it will save whole.
    const formPreview = await shown(page, page.getByTestId('character-avatar-preview'))
    expect(formPreview).toMatchObject({ naturalWidth: 400, naturalHeight: 600, objectFit: 'contain' })
    await saveCharacterForm(page)
    const pageUrl = new URL(page.url())

    for (const locale of ['en', 'ar'] as const) {
      const prefix = locale === 'en' ? '' : `/${locale}`
      await page.goto(`${server.url}${prefix}${pageUrl.pathname}`)
      await page.waitForFunction(HYDRATED)
      const onPage = await shown(page, page.getByTestId('character-picture'))
      expectWhole(onPage, `${locale} page`)
      expect(onPage.src).toMatch(/\/api\/public\/images\/[0-9a-f-]{36}\/card-(320|640)$/)
      await shootFromTop(page, `character-portrait-page-${locale}.png`)

      await page.goto(`${server.url}${prefix}/characters?q=${encodeURIComponent('Tall Wren')}`)
      await page.waitForFunction(HYDRATED)
      const card = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: NAME }) })
      const onCard = await shown(page, card.getByTestId('role-card-picture'))
      expectWhole(onCard, `${locale} catalogue card`)
      await shootFromTop(page, `character-portrait-card-${locale}.png`)
    }
    expect(errors).toEqual([])
    await context.close()
  })
})
