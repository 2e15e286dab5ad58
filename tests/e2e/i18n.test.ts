import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALE_TAGS, LOCALES, localizePath } from '#contracts/locales.ts'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  startServer,
} from './browser.ts'

const localesDir = path.resolve(import.meta.dirname, '..', '..', 'locales')

describe.skipIf(!chromiumPath)('languages in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true })
    server = await startServer()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('sends a first-time Japanese visitor to /ja and remembers it for 365 days', async () => {
    const context = await browser.newContext({ locale: 'ja-JP', userAgent: PERSON_USER_AGENT })
    const page = await context.newPage()
    const first = await page.goto(`${server.url}/`)
    expect(new URL(page.url()).pathname).toBe('/ja')
    expect(first?.status()).toBe(200)
    expect(await page.locator('html').getAttribute('lang')).toBe('ja')
    const cookie = (await context.cookies()).find((c) => c.name === 'lang')
    expect(cookie?.value).toBe('ja')
    const days = ((cookie?.expires ?? 0) * 1000 - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(364)
    expect(days).toBeLessThanOrEqual(365)
    // The Japanese text is in the first HTML, not swapped in afterwards.
    const html = await (await fetch(`${server.url}/ja`, { headers: { cookie: 'lang=ja' } })).text()
    expect(html).toContain('<html lang="ja" dir="ltr"')
    expect(html).toContain('言語を選択')
    await context.close()
  })

  it('switches to Deutsch on the same page, and English comes back without a prefix', async () => {
    const context = await browser.newContext({
      locale: 'ja-JP',
      userAgent: PERSON_USER_AGENT,
      viewport: { width: 1280, height: 800 },
    })
    const page = await context.newPage()
    await page.goto(`${server.url}/ja/characters?sort=newest`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('language-switcher').click()
    // The new page is slowed down so the 'Redirecting' state can be seen while it loads.
    await page.route('**/de/characters*', async (route) => {
      await new Promise((r) => setTimeout(r, 700))
      await route.continue()
    })
    // Watched from inside the page: Playwright's own waits pause while a navigation is in flight,
    // which is exactly when the 'Redirecting' state shows (in the language being left: Japanese).
    const ja = JSON.parse(readFileSync(path.join(localesDir, 'ja', 'common.json'), 'utf8'))
    const shown = await page.evaluate(async () => {
      document.querySelector<HTMLAnchorElement>('a[hreflang="de"]')?.click()
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 20))
        const status = document.querySelector('[role="status"]')
        if (status) return status.textContent
      }
      return null
    })
    expect(shown).toBe(ja.redirecting)
    await page.waitForURL(`${server.url}/de/characters?sort=newest`)
    await page.unroute('**/de/characters*')
    expect(await page.locator('html').getAttribute('lang')).toBe('de')
    expect((await context.cookies()).find((c) => c.name === 'lang')?.value).toBe('de')
    await page.getByText('Sprache auswählen').first().waitFor()

    // The chosen language now wins over the browser's Japanese: an unprefixed URL goes to German.
    await page.goto(`${server.url}/`)
    expect(new URL(page.url()).pathname).toBe('/de')

    await page.goto(`${server.url}/de`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('language-switcher').click()
    await page.getByRole('link', { name: 'English' }).click()
    await page.waitForURL(`${server.url}/`)
    expect(await page.locator('html').getAttribute('lang')).toBe('en')
    expect((await context.cookies()).find((c) => c.name === 'lang')?.value).toBe('en')
    await context.close()
  })

  it('lays Arabic out right to left with the sidebar on the right', async () => {
    const context = await browser.newContext({ locale: 'ar', viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/ar`)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    const sidebar = await page.locator('#sidebar').boundingBox()
    const main = await page.locator('#main').boundingBox()
    expect(sidebar && main && sidebar.x > main.x).toBe(true)
    expect((sidebar?.x ?? 0) + (sidebar?.width ?? 0)).toBeCloseTo(1280, -1)
    await page.screenshot({ path: path.join(screenshotDir, 'home-ar.png') })
    await context.close()

    const mobile = await browser.newContext({ locale: 'ar', viewport: { width: 360, height: 740 } })
    const phone = await mobile.newPage()
    await phone.goto(`${server.url}/ar`)
    await phone.waitForFunction(HYDRATED)
    await phone.getByRole('button', { name: 'فتح القائمة' }).click()
    await phone.waitForTimeout(300)
    const drawer = await phone.locator('#sidebar').boundingBox()
    expect((drawer?.x ?? 0) + (drawer?.width ?? 0)).toBeCloseTo(360, -1)
    await phone.screenshot({ path: path.join(screenshotDir, 'home-ar-360-menu.png') })
    await mobile.close()
  })

  it('never redirects search engine crawlers', async () => {
    const res = await fetch(`${server.url}/`, {
      redirect: 'manual',
      headers: {
        'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
        'accept-language': 'ja',
      },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  it('answers every locale prefix with its language, and an unknown prefix with 404', async () => {
    for (const locale of LOCALES) {
      const res = await fetch(`${server.url}${localizePath(locale, '/')}`, { headers: { cookie: `lang=${locale}` } })
      expect(res.status, locale).toBe(200)
      const html = await res.text()
      // The page really is in that language: its own words, not keys or English.
      const common = JSON.parse(readFileSync(path.join(localesDir, locale, 'common.json'), 'utf8'))
      const home = JSON.parse(readFileSync(path.join(localesDir, locale, 'home.json'), 'utf8'))
      const text = html
        .replace(/&#x27;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
      expect(text, locale).toContain(`>${common.language.select}<`)
      expect(text, locale).toContain(home.hero.title)
      expect(html, locale).toMatch(new RegExp(`<html lang="[^"]+" dir="${locale === 'ar' ? 'rtl' : 'ltr'}"`))
      // Every page lists all 21 alternates plus x-default, and its own canonical URL.
      expect(html.match(/rel="alternate" hrefLang=/g)?.length, locale).toBe(22)
      expect(html).toContain(`<link rel="canonical" href="${server.url}${localizePath(locale, '/')}"/>`)
    }
    for (const bad of ['/xx', '/en', '/en/characters', '/zz/characters']) {
      const res = await fetch(`${server.url}${bad}`, { headers: { cookie: 'lang=en' } })
      expect(res.status, bad).toBe(404)
    }
  })

  it('answers every spec route built so far with 200 in its language under all 21 prefixes', async () => {
    const first = (await (await fetch(`${server.url}/api/roles?pageSize=1`)).json()).data.items[0].roleId as string
    const article = (await (await fetch(`${server.url}/api/blogs?pageSize=1`)).json()).data.items[0].slug as string
    // Grows with each capability: add a page here when it lands (blog, chat, subscribe, links, ...).
    const routes = [
      '/',
      '/characters',
      `/characters/${first}`,
      '/login',
      '/register',
      '/verify',
      '/auth/callback/google',
      '/forgot-password',
      '/reset-password',
      '/subscribe',
      '/subscribe/success',
      '/subscribe/sandbox',
      '/chat/new',
      '/chat/00000000-0000-4000-8000-000000000000',
      '/characters/edit/new',
      '/characters/edit/form',
      '/characters/mine',
      '/characters/lorebooks',
      '/blog',
      `/blog/${article}`,
      '/links',
      '/privacy-policy',
      '/account',
    ]
    for (const locale of LOCALES) {
      for (const route of routes) {
        const url = `${server.url}${localizePath(locale, route)}`
        const res = await fetch(url, { headers: { cookie: `lang=${locale}` } })
        expect(res.status, url).toBe(200)
        expect(await res.text(), url).toMatch(new RegExp(`<html lang="${LOCALE_TAGS[locale]}"`))
      }
      // The sitemap is XML, not a page: every locale has its own, English's at /en/sitemap.xml.
      const sitemap = await fetch(`${server.url}/${locale}/sitemap.xml`)
      expect(sitemap.status, locale).toBe(200)
      expect(sitemap.headers.get('content-type'), locale).toBe('application/xml; charset=utf-8')
      expect(await sitemap.text(), locale).toContain(`<loc>${server.url}${localizePath(locale, '/blog')}</loc>`)
    }
    const index = await fetch(`${server.url}/sitemap.xml`)
    expect(index.status).toBe(200)
    expect(await index.text()).toContain('<sitemapindex ')
  })
})
