import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleList } from '#contracts/catalogue.ts'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startServer,
} from './browser.ts'

const strings = (locale: string, ns: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', '..', 'locales', locale, `${ns}.json`), 'utf8'))

describe.skipIf(!chromiumPath)('catalogue in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    // The 40 hand-written characters, plus generated ones so a tag filter has several pages.
    server = await startServer({}, { syntheticRoles: 1500 })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  async function open(locale: string, width = 1280): Promise<Page> {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width, height: 900 } })
    await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    ;(page as Page & { errors: string[] }).errors = errors
    return page
  }

  for (const locale of ['en', 'fr']) {
    it(`walks home → list → tag → page 2 → jump → character → more characters (${locale})`, async () => {
      const c = strings(locale, 'catalogue')
      const h = strings(locale, 'home')
      const prefix = locale === 'en' ? '' : `/${locale}`
      const page = await open(locale)
      await page.goto(`${server.url}${prefix}/`)
      await page.waitForFunction(HYDRATED)
      const popular = page.getByRole('region', { name: h.popular.title })
      expect(
        await popular
          .getByRole('listitem')
          .filter({ has: page.locator('h3') })
          .count(),
      ).toBeGreaterThan(4)
      await page.getByRole('link', { name: h.popular.seeAll }).click()
      await page.waitForURL(`${server.url}${prefix}/characters`)

      await page.getByText(c.list.filterRoles, { exact: true }).first().click()
      const fantasy = locale === 'en' ? 'Fantasy' : 'Fantasy'
      await page.locator('label', { hasText: fantasy }).first().click()
      await page.getByRole('button', { name: c.list.applyFilter }).click()
      await page.waitForURL(/tags=fantasy/)
      await page.getByRole('link', { name: c.list.removeTag.replace('{{tag}}', fantasy) }).waitFor()

      const pagination = page.getByRole('navigation', { name: c.pagination.label })
      await pagination.getByRole('link', { name: c.pagination.next }).click()
      await page.waitForURL(/tags=fantasy&page=2|page=2&tags=fantasy/)
      await pagination.getByText(c.pagination.pageOf.replace('{{page}}', '2').split('{{total}}')[0] ?? '').waitFor()

      await pagination.getByLabel(c.pagination.jumpLabel).fill('3')
      await pagination.getByRole('button', { name: c.pagination.go }).click()
      await page.waitForURL(/page=3/)
      expect(new URL(page.url()).searchParams.getAll('tags')).toEqual(['fantasy'])
      await page.goBack()
      await page.waitForURL(/page=2/)
      await pagination.getByLabel(c.pagination.jumpLabel).and(page.locator('[value="2"]')).waitFor()

      // Adult characters open behind the age gate (tested on its own below): take one that is not.
      const firstCard = page.locator('main ul > li').filter({ hasNotText: c.card.adultBadge }).locator('h2 a').first()
      const name = (await firstCard.textContent()) ?? ''
      await firstCard.click()
      await page.waitForURL(new RegExp(`${prefix}/characters/[a-z0-9]+$`))
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain(name)
      await page.getByRole('link', { name: c.role.startChat }).waitFor()
      const more = page.getByRole('region', { name: c.role.moreCharacters })
      const before = await more.locator('h3').count()
      expect(before).toBeGreaterThan(0)
      await more.getByRole('button', { name: c.role.getMore }).click()
      await expect.poll(() => more.locator('h3').count()).toBeGreaterThan(before)
      await page.screenshot({ path: path.join(screenshotDir, `character-${locale}.png`), fullPage: true })
      expect((page as Page & { errors: string[] }).errors).toEqual([])
      await page.context().close()
    })
  }

  it('searches as you type from the top bar', async () => {
    const page = await open('en')
    await page.goto(`${server.url}/`)
    await page.waitForFunction(HYDRATED)
    const api = (await (await fetch(`${server.url}/api/roles?pageSize=1`)).json()).data as RoleList
    const target = api.items[0]?.name ?? ''
    await page.getByPlaceholder('Search AI characters...').pressSequentially(target.slice(0, 5), { delay: 40 })
    await page.waitForURL(/\/characters\?q=/)
    // Each keystroke may navigate (search as you type); the last one's page can take a while on a
    // loaded two-core machine.
    await expect.poll(() => page.locator('main li h2').allTextContents(), { timeout: 30_000 }).toContain(target)
    await page.screenshot({ path: path.join(screenshotDir, 'search.png') })
    await page.context().close()
  }, 90_000)

  it('shows "Load Failed" with a Retry that recovers', async () => {
    const page = await open('en')
    await page.goto(`${server.url}/characters`)
    await page.waitForFunction(HYDRATED)
    await page.route('**/characters.data*', (route) => route.abort('connectionreset'))
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Next' }).click()
    await page.getByText(/^Load Failed: /).waitFor()
    await page.unroute('**/characters.data*')
    await page.getByRole('button', { name: 'Retry' }).click()
    await page.getByText('Page 2 of').waitFor()
    await page.context().close()
  })

  it('says so when nothing matches, and answers an unknown character with 404', async () => {
    const page = await open('en')
    await page.goto(`${server.url}/characters?q=zzzzqqqxxx`)
    await page.getByText('No matching roles found').waitFor()
    const missing = await page.goto(`${server.url}/characters/doesnotexist`)
    expect(missing?.status()).toBe(404)
    await page.getByText('Page not found: /characters/doesnotexist').waitFor()
    await page.context().close()
  })

  it('keeps adult characters blurred until the visitor confirms their age, and can hide them again', async () => {
    const all = (await (await fetch(`${server.url}/api/roles?pageSize=100&tags=romance&sort=rating`)).json())
      .data as RoleList
    const adult = all.items.find((r) => r.isAdult && r.avatarUrl)
    expect(adult, 'a seeded adult character').toBeTruthy()
    const page = await open('en')
    await page.goto(`${server.url}/characters/${adult?.roleId}`)
    await page.waitForFunction(HYDRATED)
    const dialog = page.getByRole('dialog', { name: 'Adult content' })
    await dialog.waitFor()
    expect(await page.getByText('Hidden until you confirm your age').count()).toBeGreaterThan(0)
    // The real avatar is not even requestable yet.
    const realAvatar = await page.evaluate(async (id) => {
      const role = await (await fetch(`/api/role?roleId=${id}`)).json()
      return role.data.avatarUrl as string
    }, adult?.roleId)
    expect(realAvatar).toBe(adult?.avatarUrl)
    await page.screenshot({ path: path.join(screenshotDir, 'age-gate.png') })

    await dialog.getByRole('button', { name: 'I am 18 or older' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await expect.poll(() => page.getByText('Hidden until you confirm your age').count()).toBe(0)
    const unlocked = await page.evaluate(
      async (id) => (await (await fetch(`/api/role?roleId=${id}`)).json()).data,
      adult?.roleId,
    )
    expect(unlocked.gated).toBe(false)
    expect((await fetch(`${server.url}${unlocked.avatarUrl}`)).status).toBe(403) // no cookie outside the browser
    expect(await page.evaluate(async (url) => (await fetch(url)).status, unlocked.avatarUrl)).toBe(200)

    // The choice is remembered across pages and reloads, and can be taken back.
    await page.reload()
    expect(await page.getByRole('dialog', { name: 'Adult content' }).isVisible()).toBe(false)
    const characterUrl = page.url()
    await page.goto(`${server.url}/characters`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('button', { name: 'Hide adult content' }).click()
    // The notification: top centre, and a click anywhere on it closes it.
    const notice = page.getByText('Adult content is hidden again.')
    await notice.waitFor()
    const box = await notice.boundingBox()
    expect(Math.abs((box?.x ?? 0) + (box?.width ?? 0) / 2 - 640)).toBeLessThan(200)
    expect(box?.y ?? 999).toBeLessThan(120)
    await notice.click()
    await notice.waitFor({ state: 'detached', timeout: 2000 })
    await page.goto(characterUrl)
    await page.getByRole('dialog', { name: 'Adult content' }).waitFor()
    await page.context().close()
  })

  it('has no serious accessibility violations on the catalogue pages', async () => {
    const page = await open('en')
    for (const url of ['/', '/characters', '/characters?tags=fantasy&page=2']) {
      await page.goto(`${server.url}${url}`)
      await page.waitForFunction(HYDRATED)
      expect(JSON.stringify(await seriousA11yViolations(page), null, 1), url).toBe('[]')
    }
    const first = (await (await fetch(`${server.url}/api/roles?pageSize=1`)).json()).data.items[0].roleId
    await page.goto(`${server.url}/characters/${first}`)
    await page.waitForFunction(HYDRATED)
    expect(JSON.stringify(await seriousA11yViolations(page), null, 1)).toBe('[]')
    await page.context().close()
  })
})
