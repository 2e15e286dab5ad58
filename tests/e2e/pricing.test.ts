import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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

const buyer = { username: 'buyer', email: 'buyer@example.test', password: 'a lantern over the harbour' }
const arabicBuyer = {
  username: 'arabicbuyer',
  email: 'arabic-buyer@example.test',
  password: 'a lantern over the dunes',
}

describe.skipIf(!chromiumPath)('plans and payments in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    // No payment keys: the sandbox stands in for Stripe and BTCPay.
    server = await startServer({}, { users: [buyer, arabicBuyer] })
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
    await pro.getByText('Characters remember the last 32,000 tokens of a chat').waitFor()
    const free = cards.first()
    await free.getByText('Free', { exact: true }).first().waitFor()
    // The free plan's diamonds buy premium replies, and its card says so (ADR 018).
    await free.getByText('30 diamonds every month').waitFor()
    await free.getByText('Premium models with diamonds').waitFor()
    for (const card of await cards.all()) {
      expect(await card.getByText('Premium models with diamonds').count()).toBe(1)
    }
    // What a premium reply costs, cut and stopped ones included (ADR 031), is said on the page.
    expect(await page.getByTestId('replies-rule').innerText()).toContain(
      'a reply that fails or that you stop costs nothing',
    )
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

    // Back on the plans, the plan held is marked and cannot be bought again (ADR 025).
    await page.getByRole('link', { name: 'Back to plans' }).click()
    await pro.getByText('Your current plan').waitFor()
    await page.getByText('Yearly', { exact: true }).click()
    expect(await pro.getByRole('button', { name: 'Subscribe with credit card' }).count()).toBe(0)
    expect(await pro.getByRole('button', { name: 'Buy with crypto' }).count()).toBe(0)
    // Smaller plans and monthly billing say when they can be chosen instead of offering a payment.
    const plus = cards.filter({ has: page.getByRole('heading', { name: 'Plus' }) })
    await plus.getByTestId('plan-step-down').filter({ hasText: 'To move to this plan, cancel yours first' }).waitFor()
    await page.getByText('Monthly', { exact: true }).click()
    await pro.getByTestId('plan-step-down').waitFor()
    await page.getByText('Yearly', { exact: true }).click()
    // A bigger plan is an upgrade of the same subscription, after a confirmation.
    const ultra = cards.filter({ has: page.getByRole('heading', { name: 'Ultra' }) })
    await ultra.getByRole('button', { name: 'Upgrade' }).waitFor()
    await ultra.getByText('only the difference for the rest of this period').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-plan-held.png'), fullPage: true })
    await ultra.getByRole('button', { name: 'Upgrade' }).click()
    const dialog = page.getByRole('dialog', { name: 'Change your plan to Ultra?' })
    await dialog.getByText('Your saved card is charged now for the difference').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-upgrade-dialog.png') })
    await page.getByTestId('confirm-change-plan').click()
    await page.getByText('Your plan is now Ultra.').waitFor()
    await ultra.getByText('Your current plan').waitFor()
    expect(await pro.getByText('Your current plan').count()).toBe(0)
    // The month's diamonds become Ultra's: 10,000 less the 3,030 this month already gave.
    await page.reload()
    await page.getByTestId('balance').filter({ hasText: '10,050' }).waitFor()
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
    expect(await page.getByTestId('replies-rule').innerText()).toContain('الرد الذي يتوقف عند حدّ طوله يُحتسب')
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-ar.png'), fullPage: true })
    await context.close()
  })

  it('offers an upgrade and the switch to yearly in Arabic to a monthly card subscriber', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 1000 } })
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    const page = await context.newPage()
    await page.goto(`${server.url}/ar/login`)
    await page.waitForFunction(HYDRATED)
    await page.locator('input[type=email]').fill(arabicBuyer.email)
    await page.locator('input[type=password]').fill(arabicBuyer.password)
    await page.locator('form button[type=submit]').click()
    await page.getByTestId('account-link').waitFor()
    // Plus monthly by card, bought as the page would and settled by the sandbox.
    const settled = await page.evaluate(async () => {
      const headers = { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' }
      const start = await fetch('/api/subscription', {
        method: 'POST',
        headers,
        body: JSON.stringify({ paymentType: 'card', planId: 'plus', billingCycle: 'monthly', locale: 'ar' }),
      })
      const { orderId } = (await start.json()).data
      const paid = await fetch('/api/payment/sandbox', {
        method: 'POST',
        headers,
        body: JSON.stringify({ orderId, outcome: 'paid' }),
      })
      return (await paid.json()).data.status
    })
    expect(settled).toBe('paid')
    await page.goto(`${server.url}/ar/subscribe`)
    await page.waitForFunction(HYDRATED)
    expect(await page.getAttribute('html', 'dir')).toBe('rtl')
    const cards = page.getByRole('article')
    const plus = cards.filter({ has: page.getByRole('heading', { name: 'Plus' }) })
    const pro = cards.filter({ has: page.getByRole('heading', { name: 'Pro' }) })
    await plus.getByText('خطتك الحالية').waitFor()
    expect(await plus.getByRole('button', { name: 'الاشتراك ببطاقة الائتمان' }).count()).toBe(0)
    await pro.getByRole('button', { name: 'ترقية' }).waitFor()
    await page.getByText('سنويًا', { exact: true }).click()
    await plus.getByRole('button', { name: 'التحويل إلى الدفع السنوي' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-plan-held-ar.png'), fullPage: true })
    await plus.getByRole('button', { name: 'التحويل إلى الدفع السنوي' }).click()
    await page.getByRole('dialog', { name: 'هل تريد تغيير خطتك إلى Plus؟' }).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-switch-yearly-ar.png') })
    await page.getByTestId('confirm-change-plan').click()
    await page.getByText('خطتك الآن Plus.').waitFor()
    // Now yearly: the yearly card is the plan held, and monthly is a step down.
    expect(await plus.getByRole('button', { name: 'التحويل إلى الدفع السنوي' }).count()).toBe(0)
    await page.getByText('شهريًا', { exact: true }).click()
    await plus.getByTestId('plan-step-down').waitFor()
    await context.close()
  })
})
