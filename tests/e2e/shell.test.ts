import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startServer,
} from './browser.ts'

const SHELL_USER = { username: 'shelltester', email: 'shell@example.test', password: 'Shell-tester-password-42' }

describe.skipIf(!chromiumPath)('app shell in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    mkdirSync(screenshotDir, { recursive: true })
    server = await startServer({}, { users: [SHELL_USER] })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('renders the home page, navigates client-side, and shows the 404 page', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    // Expected 404s are the documents and route data of missing pages; any other failure is a bug.
    page.on('response', (res) => {
      const url = new URL(res.url())
      const expected404 =
        res.status() === 404 && (res.request().resourceType() === 'document' || url.pathname.endsWith('.data'))
      if (res.status() >= 400 && !expected404) pageErrors.push(`${res.status()} ${url.pathname}`)
    })
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        pageErrors.push(message.text())
      }
    })

    const response = await page.goto(`${server.url}/`)
    expect(response?.status()).toBe(200)
    const headers = response?.headers() ?? {}
    // The home page comes from the render cache: its inline scripts are trusted by hash (ADR 062).
    expect(headers['content-security-policy']).toMatch(/script-src 'self' ('sha256-[A-Za-z0-9+/=]+' )+'strict-dynamic'/)
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(headers['content-encoding']).toMatch(/^(br|gzip)$/)
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en')
    await page.getByRole('heading', { level: 1 }).waitFor()
    await page.getByRole('link', { name: 'Login' }).waitFor()
    expect(await page.getByPlaceholder('Search AI characters...').count()).toBe(1)
    expect(await page.getByText('© 2025 Taleweave').count()).toBe(1)
    // Wait for hydration: React attaches its root container property to the document.
    await page.waitForFunction(HYDRATED)

    // A marker on window survives client-side navigation and dies with a full page load.
    await page.evaluate(() => {
      ;(window as unknown as { marker: number }).marker = 42
    })
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Characters' }).click()
    await page.waitForURL(`${server.url}/characters`)
    await page.getByRole('heading', { level: 1, name: 'Characters' }).waitFor()
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)
    // A page that does not exist, reached client-side (through the router, as a link would), shows
    // the 404 page inside the shell.
    await page.evaluate(() =>
      (
        window as unknown as { __reactRouterDataRouter: { navigate: (to: string) => Promise<void> } }
      ).__reactRouterDataRouter.navigate('/no/such/page-in-app'),
    )
    await page.waitForURL(`${server.url}/no/such/page-in-app`)
    await page.getByTestId('error-not-found').waitFor()
    expect(await page.getByText('Page not found: /no/such/page-in-app').count()).toBe(1)
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)

    await page.getByRole('link', { name: 'Back to home' }).click()
    await page.waitForURL(`${server.url}/`)
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42)

    const missing = await page.goto(`${server.url}/no/such/page`)
    expect(missing?.status()).toBe(404)
    await page.getByText('Page not found: /no/such/page').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'not-found.png') })

    // Assets: hashed, immutable for a year, precompressed.
    const asset = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel=modulepreload]')?.href)
    expect(asset).toBeTruthy()
    const assetResponse = await fetch(asset ?? '', { headers: { 'accept-encoding': 'br, gzip' } })
    expect(assetResponse.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(assetResponse.headers.get('content-encoding')).toBe('br')

    expect(pageErrors).toEqual([])
    await context.close()
  })

  it('has no serious or critical accessibility violations', async () => {
    const context = await browser.newContext({ locale: 'en-US' })
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByRole('heading', { level: 1 }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.goto(`${server.url}/missing-page`)
    await page.getByTestId('error-not-found').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await context.close()
  })

  it('collapses the sidebar into a drawer on a 360 px wide screen', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 360, height: 740 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.waitForFunction(HYDRATED)
    const sidebar = page.locator('#sidebar')
    expect(await sidebar.isVisible()).toBe(false)
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.screenshot({ path: path.join(screenshotDir, 'home-360.png'), fullPage: true })
    await page.getByRole('button', { name: 'Open menu' }).click()
    await expect.poll(() => sidebar.isVisible()).toBe(true)
    await page.waitForTimeout(300) // let the slide-in finish before the picture
    await page.screenshot({ path: path.join(screenshotDir, 'home-360-menu.png') })
    await page.keyboard.press('Escape')
    await expect.poll(() => sidebar.isVisible()).toBe(false)
    await context.close()
  })

  it('shows Logout and My Chats when a token is held, and clears both tokens on Logout', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: SHELL_USER.email, password: SHELL_USER.password }),
    })
    const { token, refreshToken } = (await login.json()).data as { token: string; refreshToken: string }
    await page.goto(`${server.url}/`)
    await page.evaluate(
      ([access, refresh]) => {
        localStorage.setItem('token', access ?? '')
        localStorage.setItem('refreshToken', refresh ?? '')
      },
      [token, refreshToken],
    )
    await page.reload()
    await page.getByRole('button', { name: 'Logout' }).waitFor()
    await page.getByText('No chat history').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'home-logged-in.png') })
    await page.getByRole('button', { name: 'Logout' }).click()
    await page.getByRole('link', { name: 'Login' }).waitFor()
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('refreshToken')])).toEqual([
      null,
      null,
    ])
    await context.close()
  })

  it('does a full page load on the next navigation once a newer build is deployed', async () => {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.waitForFunction(HYDRATED)
    // The build it runs, fetched once after idle.
    await page.waitForResponse((r) => /\/builds\/meta\/[^/]+\.json$/.test(new URL(r.url()).pathname))
    await page.evaluate(() => {
      ;(window as unknown as { marker: number }).marker = 1
    })
    const nav = page.getByRole('navigation', { name: 'Main navigation' })

    // Same build: navigation stays client-side.
    await nav.getByRole('link', { name: 'Pricing' }).click()
    await page.waitForURL(`${server.url}/subscribe`)
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1)

    // A deploy happens: latest.json now names another build; the tab checks when it becomes visible.
    await page.route('**/builds/latest.json*', (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify({ id: 'newer-build', timestamp: 1 }) }),
    )
    const polled = page.waitForRequest((r) => r.url().includes('/builds/latest.json'))
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
    await polled
    await page.waitForTimeout(100)
    await nav.getByRole('link', { name: 'Home' }).click()
    await page.waitForURL(`${server.url}/`)
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { marker?: number }).marker ?? 'reloaded'))
      .toBe('reloaded')
    await context.close()
  })

  it('sends each page only the translations it needs', async () => {
    const home = await (await fetch(`${server.url}/`, { headers: { cookie: 'lang=en' } })).text()
    const handoff = (html: string) => JSON.parse(/window\.__I18N__=(.*?)<\/script>/.exec(html)?.[1] ?? '{}')
    expect(Object.keys(handoff(home).resources).sort()).toEqual(['catalogue', 'common', 'home'])
    const missing = await (await fetch(`${server.url}/no-such-page`, { headers: { cookie: 'lang=en' } })).text()
    expect(Object.keys(handoff(missing).resources)).toEqual(['common'])
  })

  it('serves the API docs UI, working under its content security policy', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const violations: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text())
    })
    await page.goto(`${server.url}/api/docs`)
    await page.getByText('Role-play platform API').first().waitFor()
    await page.getByText('/readyz').first().waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'api-docs.png') })
    expect(violations).toEqual([])
    await context.close()
  })
})
