import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startServer,
} from './browser.ts'

const HYDRATED = () => Object.keys(document).some((k) => k.startsWith('__reactContainer'))
const buyer = { username: 'buyer', email: 'buyer@example.test', password: 'a lantern over the harbour' }

describe.skipIf(!chromiumPath)('plans and payments in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    // No payment keys: the sandbox stands in for Stripe and BTCPay.
    server = await startServer({}, { users: [buyer] })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('shows the plans, sends a visitor to log in first, then buys a yearly plan through the sandbox', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 1000 } })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    await page.goto(`${server.url}/subscribe`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'Choose your plan' }).waitFor()
    const cards = page.getByRole('article')
    expect(await cards.count()).toBe(4)
    const pro = cards.filter({ has: page.getByRole('heading', { name: 'Pro' }) })
    await pro.getByText('Best Value').waitFor()
    await pro.getByText('$19.99 / month').waitFor()
    await pro.getByText('3,000 diamonds every month').waitFor()
    await pro.getByText('32K memory').waitFor()
    const free = cards.first()
    await free.getByText('Free', { exact: true }).first().waitFor()
    // The free plan's diamonds buy premium replies, and its card says so (ADR 018).
    await free.getByText('30 diamonds every month').waitFor()
    await free.getByText('Premium models with diamonds').waitFor()
    for (const card of await cards.all()) {
      expect(await card.getByText('Premium models with diamonds').count()).toBe(1)
    }
    expect(await seriousA11yViolations(page)).toEqual([])

    await page.getByText('Yearly', { exact: true }).click()
    await pro.getByText('$179.88 / year').waitFor()
    await pro.getByText('Save 25%').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'pricing.png'), fullPage: true })

    // Logged out: buying asks for a login and comes back here.
    await pro.getByRole('button', { name: 'Subscribe with credit card' }).click()
    await page.waitForURL(/\/login\?redirect_url=%2Fsubscribe/)
    await page.waitForFunction(HYDRATED)
    await page.getByLabel('E-mail').fill(buyer.email)
    await page.getByLabel('Password').fill(buyer.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${server.url}/subscribe`)
    // 50 welcome diamonds and the free plan's 30 of this month (awarded at start).
    await page.getByTestId('balance').filter({ hasText: '80' }).waitFor()

    await page.getByText('Yearly', { exact: true }).click()
    await pro.getByRole('button', { name: 'Subscribe with credit card' }).click()
    await page.waitForURL(/\/subscribe\/sandbox\?orderId=ord_/)
    await page.getByText('Sandbox: no real money').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-sandbox.png') })
    await page.getByRole('button', { name: 'Pay', exact: true }).click()

    await page.waitForURL(/\/subscribe\/success\?orderId=ord_/)
    await page.getByText('Your Pro plan is active.').waitFor()
    await page.getByTestId('success-balance').filter({ hasText: 'Your balance: 3,080 diamonds' }).waitFor()
    await page.getByTestId('balance').filter({ hasText: '3,080' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-success.png') })

    // Back on the plans, the plan held is marked.
    await page.getByRole('link', { name: 'Back to plans' }).click()
    await pro.getByText('Your current plan').waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it('renders the pricing page in Arabic, right to left, with localized prices', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 1000 } })
    const page = await context.newPage()
    const response = await page.goto(`${server.url}/ar/subscribe`)
    expect(response?.status()).toBe(200)
    expect(await page.getAttribute('html', 'dir')).toBe('rtl')
    await page.waitForFunction(HYDRATED)
    const cards = page.getByRole('article')
    await cards.first().waitFor()
    expect(await cards.count()).toBe(4)
    const text = await page.locator('main').innerText()
    // Prices are formatted by Intl for Arabic, not as "$19.99".
    expect(text).not.toContain('$19.99')
    expect(text).toContain(new Intl.NumberFormat('ar', { style: 'currency', currency: 'USD' }).format(19.99))
    // Every card, the free one first, offers premium models with diamonds.
    await cards.first().getByText('النماذج المميّزة مقابل الماسات').waitFor()
    expect(await page.getByText('النماذج المميّزة مقابل الماسات').count()).toBe(4)
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-ar.png'), fullPage: true })
    await context.close()
  })
})
