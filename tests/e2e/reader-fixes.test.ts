import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleList } from '#contracts/catalogue.ts'
import type { Locale } from '#contracts/locales.ts'
import { USER_STAND_IN } from '#contracts/user-stand-in.ts'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  startServer,
} from './browser.ts'

const strings = (locale: string, ns: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', '..', 'locales', locale, `${ns}.json`), 'utf8'))

// What readers of Japanese and Arabic noticed (issue 20): a returning visitor's language, character
// texts with names and emphasis, the human check's own words, blog topics by name.
describe.skipIf(!chromiumPath)('reader fixes in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let roleId: string
  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
    const list = (await (await fetch(`${server.url}/api/roles?q=Seraphine&pageSize=1`)).json()).data as RoleList
    roleId = list.items[0]?.roleId ?? ''
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

  it('sends a returning visitor whose cookie says ja from / and /characters to the Japanese pages', async () => {
    const page = await open('ja')
    await page.goto(`${server.url}/`)
    expect(new URL(page.url()).pathname).toBe('/ja')
    expect(await page.locator('html').getAttribute('lang')).toBe('ja')
    await page.goto(`${server.url}/characters`)
    expect(new URL(page.url()).pathname).toBe('/ja/characters')
    await page.context().close()
  })

  for (const locale of ['ja', 'ar'] as const) {
    it(`renders a character page's names and emphasis in ${locale}`, async () => {
      for (const width of [1280, 390]) {
        const page = await open(locale, width)
        await page.goto(`${server.url}/${locale}/characters/${roleId}`)
        await page.waitForFunction(HYDRATED)
        const main = page.locator('main')
        expect(await main.innerText()).not.toMatch(/\{\{(user|char)\}\}/i)
        // The first message opens with an action in asterisks: shown as emphasis, without them.
        const emphasis = await main.locator('.chat-markdown em').count()
        expect(emphasis).toBeGreaterThan(0)
        // {{user}} for a visitor not signed in: "you" in the language of the text shown (ADR 039:
        // the locale's when the character is translated into it, else its own).
        const shown = (await (await fetch(`${server.url}/api/role?roleId=${roleId}&locale=${locale}`)).json()).data
        expect(await main.innerText()).toContain(USER_STAND_IN[shown.language as Locale])
        await page.screenshot({
          path: path.join(screenshotDir, `reader-character-${locale}-${width}.png`),
          fullPage: true,
        })
        expect((page as Page & { errors: string[] }).errors).toEqual([])
        await page.context().close()
      }
    })

    it(`shows the human check and blog topics in ${locale}`, async () => {
      const auth = strings(locale, 'auth')
      const blog = strings(locale, 'blog')
      const page = await open(locale)
      await page.goto(`${server.url}/${locale}/register`)
      await page.waitForFunction(HYDRATED)
      const widget = page.locator('altcha-widget')
      await widget.getByText(auth.captcha.label).waitFor()
      const footer = auth.captcha.footer
        .split('{{name}}')
        .map((part: string) => part.trim())
        .filter(Boolean)[0]
      expect(await widget.innerText()).toContain(footer)
      expect(await widget.innerText()).not.toContain('Protected by')
      await page.screenshot({ path: path.join(screenshotDir, `reader-register-${locale}.png`) })

      await page.goto(`${server.url}/${locale}/blog/how-memory-and-diamonds-work`)
      const topics = page.getByRole('list', { name: blog.article.tags })
      await topics.getByText(blog.tagNames.memory, { exact: true }).waitFor()
      expect(await topics.innerText()).not.toContain('memory')
      await page.locator('table').first().scrollIntoViewIfNeeded()
      await page.screenshot({ path: path.join(screenshotDir, `reader-blog-${locale}.png`), fullPage: false })
      expect((page as Page & { errors: string[] }).errors).toEqual([])
      await page.context().close()
    })
  }
})
