import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  launchBrowser,
  logIn,
  personPage,
  type RunningServer,
  seriousA11yViolations,
  shootFromTop,
  startServer,
  stopServerAndBrowser,
} from './browser.ts'
import { enrollInPage, seedStaff } from './console-staff.ts'

// ADR 059 in a browser: a moderator (second factor enrolled) hides a tag and features a character
// in the console; the public home page then shows the character under "Featured" and the tag is
// gone from its page and the tag list. English and Arabic.

const moderator = { username: 'tag_keeper', email: 'keeper@example.test', password: 'a keeper of quiet lanterns' }
const author = { username: 'moth_writer', email: 'writer@example.test', password: 'moths circle the lantern' }

async function shoot(page: Page, file: string, fullPage = false) {
  await shootFromTop(page, file, { fullPage })
  expect(await seriousA11yViolations(page)).toEqual([])
}

/** Writes the note of the open note dialog and confirms it. */
async function confirmWithNote(page: Page, note: string) {
  const dialog = page.getByTestId('note-dialog')
  await dialog.waitFor()
  await dialog.getByTestId('note-field').fill(note)
  await dialog.getByTestId('note-confirm').click()
  await dialog.waitFor({ state: 'detached' })
}

describe.skipIf(!chromiumPath)('tag moderation and featured characters in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let roleId: string
  beforeAll(async () => {
    const dataDir = seedStaff('rp-e2e-', [moderator, author], [[moderator.email, 'moderator']])
    server = await startServer({ DATA_DIR: dataDir })
    browser = await launchBrowser()
    roleId = await createCharacter(server.url, await apiLogin(server.url, author), {
      name: 'Lantern Keeper Odile',
      introduction: 'Odile tends the last lighthouse of the moth coast.',
      firstMessage: 'The lamp is lit.',
      tags: ['Lanternmoth'],
    })
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
  })

  it('a moderator hides a tag and features a character; the public home page shows it and the tag is gone', async () => {
    const publicTags = async () =>
      (
        (await (await fetch(`${server.url}/api/tags?locale=en`)).json()) as { data: { tags: { slug: string }[] } }
      ).data.tags.map((tag) => tag.slug)
    expect(await publicTags()).toContain('lanternmoth')

    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, moderator)
    await page.goto(`${server.url}/console`)
    await enrollInPage(page)

    // Tags: find the tag, hide it with a note.
    const nav = page.getByRole('navigation', { name: 'Console' })
    await nav.getByRole('link', { name: 'Tags' }).click()
    await page.getByTestId('tags-table').waitFor()
    await page.getByLabel('Search by slug or name').fill('lanternmoth')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const row = page.getByTestId('tag-row-lanternmoth')
    await row.getByText('moth_writer').waitFor()
    await row.getByText('Visible').waitFor()
    // A moderator sees the policy but cannot switch it.
    await page.getByTestId('tag-policy').getByText('Only an administrator can change this.').waitFor()
    await page.getByTestId('tag-hide-lanternmoth').click()
    await shoot(page, 'console-tags-hide-en.png')
    await confirmWithNote(page, 'not a tag we list')
    await row.getByText('Hidden').waitFor()
    await shoot(page, 'console-tags-en.png')
    expect(await publicTags()).not.toContain('lanternmoth')

    // Featured: add the character by its page address.
    await nav.getByRole('link', { name: 'Featured' }).click()
    await page.getByText('No character is featured.').waitFor()
    await page.getByTestId('featured-add-field').fill(`${server.url}/characters/${roleId}`)
    await page.getByTestId('featured-add').click()
    await confirmWithNote(page, 'staff pick of the week')
    await page.getByTestId('featured-list').getByText('Lantern Keeper Odile').waitFor()
    await page.getByTestId('featured-list').getByText('Shown on the home page').waitFor()
    await shoot(page, 'console-featured-en.png')

    // The same pages in Arabic: right to left, translated.
    await page.goto(`${server.url}/ar/console/tags`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('tag-row-lanternmoth').waitFor()
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByTestId('tag-row-lanternmoth').getByText('مخفي').waitFor()
    await shoot(page, 'console-tags-ar.png')
    await page.goto(`${server.url}/ar/console/featured`)
    await page.getByTestId('featured-list').getByText('Lantern Keeper Odile').waitFor()
    await shoot(page, 'console-featured-ar.png')
    expect(errors).toEqual([])
    await context.close()

    // A visitor: the home page's Featured section, then the character's page without the tag.
    const visitor = await personPage(browser, server.url)
    await visitor.page.goto(server.url)
    const featured = visitor.page.getByTestId('featured')
    await featured.getByRole('heading', { name: 'Featured characters' }).waitFor()
    await featured.getByText('Lantern Keeper Odile').waitFor()
    // Above the popular characters.
    const headings = await visitor.page.locator('h2').allTextContents()
    expect(headings.indexOf('Featured characters')).toBeLessThan(headings.indexOf('Popular characters'))
    await shoot(visitor.page, 'home-featured-en.png')
    await featured.getByText('Lantern Keeper Odile').click()
    await visitor.page.waitForURL((url) => url.pathname === `/characters/${roleId}`)
    await visitor.page.getByRole('heading', { name: 'Lantern Keeper Odile' }).waitFor()
    expect(await visitor.page.locator('a[href*="tags=lanternmoth"]').count()).toBe(0)
    expect(await visitor.page.getByText('Lanternmoth').count()).toBe(0)

    await visitor.page.goto(`${server.url}/ar`)
    const featuredAr = visitor.page.getByTestId('featured')
    await featuredAr.getByRole('heading', { name: 'شخصيات مختارة' }).waitFor()
    await featuredAr.getByText('Lantern Keeper Odile').waitFor()
    await shoot(visitor.page, 'home-featured-ar.png')
    expect(visitor.errors).toEqual([])
    await visitor.context.close()
  })
})
