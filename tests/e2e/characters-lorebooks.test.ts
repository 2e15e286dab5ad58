import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  logIn,
  openCharacterEditor,
  personPage,
  type RunningServer,
  screenshotDir,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Standalone lorebooks in the character editor (issue 21 item 7, ADR 043): a SillyTavern World Info
// file imported from the editor is attached, saved with the character, and still attached after a
// reload; the My lorebooks page lists it.

const creator = { username: 'lorekeeper', email: 'lorekeeper@example.test', password: 'moss on the old stones' }

/** SillyTavern's own Eldoria.json (../shared/cards), or a World Info file of the same shape where it is absent. */
function eldoriaFile(): string {
  const real = path.resolve(import.meta.dirname, '../../../shared/cards/st/Eldoria.json')
  if (existsSync(real)) return real
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lorebook-')), 'Eldoria.json')
  const entry = (uid: number, key: string[], content: string) => ({
    uid,
    key,
    keysecondary: [],
    comment: '',
    content,
    constant: false,
    selective: false,
    order: 100,
    position: 0,
    disable: false,
  })
  writeFileSync(
    file,
    JSON.stringify({
      entries: {
        '0': entry(0, ['eldoria', 'forest'], 'Eldoria is a magical forest.'),
        '1': entry(1, ['shadowfang'], 'Shadowfangs stalk the woods.'),
        '2': entry(2, ['glade'], 'The glade is a refuge.'),
        '3': entry(3, ['magic'], 'Seraphina heals with light.'),
      },
    }),
  )
  return file
}

describe.skipIf(!chromiumPath)('lorebooks in the character editor', () => {
  let server: RunningServer
  let browser: Browser
  let token = ''
  let roleId = ''

  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser({}, { users: [creator] }))
    token = await apiLogin(server.url, creator)
    roleId = await createCharacter(server.url, token, {
      name: 'Seraphina',
      introduction: 'The guardian of the forest glade.',
    })
    mkdirSync(screenshotDir, { recursive: true })
  })
  afterAll(() => stopServerAndBrowser(server, browser))

  it('imports Eldoria.json in the editor, attaches it, saves, and finds it attached after a reload', async () => {
    const { context, page, errors } = await personPage(browser, server.url, { viewport: { width: 1280, height: 1000 } })

    await logIn(page, server.url, creator)
    await openCharacterEditor(page, server.url, roleId)
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Attached lorebooks' }) })
    await section.getByText('No lorebook is attached to this character yet.').waitFor()

    await section.getByTestId('lorebook-file').setInputFiles(eldoriaFile())
    const attached = section.getByTestId('attached-lorebooks')
    await attached.getByText('Eldoria').waitFor()
    expect(await attached.getByText('4 entries').count()).toBe(1)
    // Nothing is stored on the character before Save.
    const before = await fetch(`${server.url}/api/roles/${roleId}/lorebooks`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(((await before.json()) as { data: { lorebooks: unknown[] } }).data.lorebooks).toEqual([])
    await section.scrollIntoViewIfNeeded()
    await section.screenshot({ path: path.join(screenshotDir, 'lorebooks-editor-en.png') })

    await page.getByTestId('save-character').click()
    await page.waitForURL((url) => url.pathname === `/characters/${roleId}`)

    await openCharacterEditor(page, server.url, roleId)
    await page
      .locator('section', { has: page.getByRole('heading', { name: 'Attached lorebooks' }) })
      .getByTestId('attached-lorebooks')
      .getByText('Eldoria')
      .waitFor()
    const stored = await fetch(`${server.url}/api/roles/${roleId}/lorebooks`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const { lorebooks } = ((await stored.json()) as { data: { lorebooks: { name: string; entryCount: number }[] } })
      .data
    expect(lorebooks).toMatchObject([{ name: 'Eldoria', entryCount: 4 }])

    // Detach, save: gone for good.
    await page.getByRole('button', { name: 'Detach Eldoria' }).click()
    await page.getByText('No lorebook is attached to this character yet.').waitFor()
    await page.getByTestId('save-character').click()
    await page.waitForURL((url) => url.pathname === `/characters/${roleId}`)
    const after = await fetch(`${server.url}/api/roles/${roleId}/lorebooks`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(((await after.json()) as { data: { lorebooks: unknown[] } }).data.lorebooks).toEqual([])

    // Attach it again from the list of mine, for the pictures below.
    await openCharacterEditor(page, server.url, roleId)
    const picker = page.getByTestId('lorebook-picker')
    await expect.poll(() => picker.locator('option').count()).toBe(2)
    await picker.selectOption({ label: 'Eldoria' })
    await page.getByTestId('attach-lorebook').click()
    await page.getByTestId('attached-lorebooks').getByText('Eldoria').waitFor()
    await page.getByTestId('save-character').click()
    await page.waitForURL((url) => url.pathname === `/characters/${roleId}`)

    // My lorebooks lists it with both downloads.
    await page.goto(`${server.url}/characters/lorebooks`)
    await page.waitForFunction(HYDRATED)
    const list = page.getByTestId('my-lorebooks')
    await list.getByText('Eldoria').waitFor()
    await list.getByRole('button', { name: 'Download Eldoria as SillyTavern World Info' }).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'lorebooks-mine-en.png'), fullPage: true })

    // The same in Arabic, right to left.
    await openCharacterEditor(page, server.url, roleId, { locale: 'ar' })
    const arSection = page.locator('section', { has: page.getByRole('heading', { name: 'كتب المعارف المرتبطة' }) })
    await arSection.getByTestId('attached-lorebooks').getByText('Eldoria').waitFor()
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await arSection.scrollIntoViewIfNeeded()
    await arSection.screenshot({ path: path.join(screenshotDir, 'lorebooks-editor-ar.png') })
    await page.goto(`${server.url}/ar/characters/lorebooks`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('my-lorebooks').getByText('Eldoria').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'lorebooks-mine-ar.png'), fullPage: true })

    expect(errors).toEqual([])
    await context.close()
  })
})
