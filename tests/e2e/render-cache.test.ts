import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  HYDRATED,
  personPage,
  type RunningServer,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Pages from the render cache (ADR 062) run in the browser: their inline scripts are trusted by
// hash (no nonce), and everything they load and insert passes the page's policy.

/** Every CSP violation the page sees, recorded from its first script on. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { __violations: string[] }).__violations = seen
    document.addEventListener('securitypolicyviolation', (e) => {
      // Zod's probe for whether it may compile validators (`Function('')` in a try): refused by
      // every page policy, nonce or hash, and caught; not a script of the page.
      if (e.blockedURI === 'eval') return
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`)
    })
  })
  const console: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') console.push(message.text())
  })
  return async () => [
    ...console,
    ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)),
  ]
}

describe.skipIf(!chromiumPath)('pages from the render cache in the browser', () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    ;({ server, browser } = await startServerAndBrowser())
  })
  afterAll(() => stopServerAndBrowser(server, browser))

  for (const lang of ['en', 'ar'] as const) {
    it(`serves ${lang} pages from the cache with a valid policy, and they hydrate`, async () => {
      const prefix = lang === 'en' ? '' : `/${lang}`
      for (const path of [`${prefix}/characters`, prefix || '/']) {
        const states: string[] = []
        for (let visit = 0; visit < 2; visit++) {
          const { context, page, errors } = await personPage(browser, server.url, { lang })
          const problems = await watchViolations(page)
          const response = await page.goto(`${server.url}${path}`)
          states.push(String(response?.headers()['x-render-cache']))
          const policy = String(response?.headers()['content-security-policy'])
          expect(policy).toContain("'sha256-")
          expect(policy).not.toContain("'nonce-")
          await page.waitForFunction(HYDRATED)
          // The deferred loader ran (it adds the module preloads after the first frame).
          await page.waitForFunction(() => document.querySelectorAll('link[rel="modulepreload"]').length > 0)
          expect(await page.locator('html').getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr')
          expect(await problems(), `${path}, visit ${visit + 1}`).toEqual([])
          expect(errors).toEqual([])
          await context.close()
        }
        // The first visit may find it cached already (the home page links the list); the second always does.
        expect(states[1], path).toBe('hit')
      }

      // A hydrated cached page navigates on the client: a character card opens its page.
      const { context, page } = await personPage(browser, server.url, { lang })
      const problems = await watchViolations(page)
      const response = await page.goto(`${server.url}${prefix}/characters`)
      expect(response?.headers()['x-render-cache']).toBe('hit')
      await page.waitForFunction(HYDRATED)
      await page.evaluate(() => {
        ;(window as unknown as { __sameDocument: boolean }).__sameDocument = true
      })
      await page.locator(`a[href^="${prefix}/characters/"]`).first().click()
      await page.waitForURL((url) => /\/characters\/[^/]+$/.test(url.pathname))
      await page.locator('h1').first().waitFor()
      expect(await problems()).toEqual([])
      // Same document: the router navigated (a full load would have dropped the mark).
      expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true)
      await context.close()
    })
  }
})
