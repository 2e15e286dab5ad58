import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import {
  apiLogin,
  chromiumPath,
  HYDRATED,
  launchBrowser,
  type RunningServer,
  seriousA11yViolations,
  shootFromTop,
  startServer,
} from './browser.ts'
import { buyPlusByCard, callApi, consoleTab, deliverWebhook, enrollByApi, seedStaff } from './console-staff.ts'

// The money console end to end (issue 23, ADR 056): an admin with TOTP refunds a card order
// through the page, Stripe's webhooks arrive several times, the diamonds move once.

const admin = { username: 'treasurer', email: 'treasurer@example.test', password: 'a ledger in the attic' }
const buyer = { username: 'buyer', email: 'buyer@example.test', password: 'a parcel at the door' }
const keys = { secretKey: 'sk_test_console_money', webhookSecret: 'whsec_test_console_money' }

describe.skipIf(!chromiumPath)('the money console in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let stripe: StripeApiDouble
  let consoleToken = ''

  const deliver = async (delivery: { payload: string; signature: string }) => {
    expect(await deliverWebhook(server.url, delivery)).toBe(200)
  }
  const balanceOf = async (token: string) => (await callApi(server.url, token, '/points')).body.data.totalPoints

  beforeAll(async () => {
    stripe = await startStripeApi(keys)
    const dataDir = seedStaff('rp-e2e-money-', [admin, buyer], [[admin.email, 'admin']])
    server = await startServer({
      DATA_DIR: dataDir,
      STRIPE_SECRET_KEY: keys.secretKey,
      STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
      STRIPE_API_URL: stripe.url,
      PAYMENTS_SANDBOX: 'false',
    })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await stripe?.close()
  })

  /** The admin's second factor, enrolled through the API: the console token the page keeps per tab. */
  async function enrollAdmin() {
    ;({ consoleToken } = await enrollByApi(server.url, await apiLogin(server.url, admin)))
    expect(String(consoleToken)).not.toBe('undefined')
  }

  /** The admin signed in through the login page of `locale`, the console token kept for the tab. */
  const adminPage = async (locale: 'en' | 'ar') =>
    (await consoleTab(browser, server.url, admin, consoleToken, locale)).page

  it('an admin with TOTP refunds part of an order from the page: the preview first, the ledger once', async () => {
    const buyerToken = await apiLogin(server.url, buyer)
    // The free plan's monthly diamonds first, then the Plus plan's 1000.
    const free = Number(await balanceOf(buyerToken))
    const orderId = await buyPlusByCard(server.url, stripe, buyerToken, deliver)
    expect(await balanceOf(buyerToken)).toBe(free + 1000)
    await enrollAdmin()

    const page = await adminPage('en')
    await page.goto(`${server.url}/console/money`)
    await page.waitForFunction(HYDRATED)
    const row = page.getByTestId('money-orders').getByRole('row').filter({ hasText: orderId })
    await expect.poll(() => row.count()).toBe(1)
    await expect.poll(() => row.innerText()).toContain('$9.99')
    await shootFromTop(page, 'console-money-orders-en.png')
    expect(await seriousA11yViolations(page)).toEqual([])

    await row.getByRole('link', { name: orderId }).click()
    await page.waitForURL(`**/console/money/orders/${orderId}`)
    await page.getByRole('heading', { name: 'Refund', exact: true }).waitFor()
    await page.getByLabel('Amount (USD)').fill('5.00')
    await page.getByRole('button', { name: 'Show what it does' }).click()
    // A note is required: nothing is asked without it.
    await page.getByRole('alert').filter({ hasText: 'Write why you refund' }).waitFor()
    await page.getByLabel('Note (why; kept in the audit log)').fill('Charged twice, asked by e-mail')
    await page.getByRole('button', { name: 'Show what it does' }).click()
    const preview = page.getByTestId('refund-preview')
    await preview.waitFor()
    // 500 of 999 takes back floor(1000 × 500 / 999) = 500 diamonds; a partial refund leaves the plan.
    expect(await preview.innerText()).toContain('Diamonds taken back: 500')
    expect(await preview.innerText()).not.toContain('ends at once')
    await shootFromTop(page, 'console-money-refund-preview-en.png', { fullPage: true })
    expect(await seriousA11yViolations(page)).toEqual([])
    // Nothing moved before the confirmation.
    expect(await balanceOf(buyerToken)).toBe(free + 1000)

    await page.getByRole('button', { name: 'Refund $5.00' }).click()
    await page.getByTestId('refund-done').waitFor()
    expect(await page.getByTestId('refund-done').innerText()).toContain('Diamonds taken back: 500')
    await page.getByTestId('order-refunds').getByText('Charged twice, asked by e-mail').waitFor()

    // Stripe reports the refund again and again: the diamonds move once.
    const events = stripe.takeEvents().filter((e) => e.type.startsWith('refund.') || e.type === 'charge.refunded')
    expect(events.length).toBeGreaterThan(0)
    for (let i = 0; i < 3; i++) for (const event of events) await deliver(event)
    expect(await balanceOf(buyerToken)).toBe(free + 500)
    expect(stripe.refunds).toHaveLength(1)
    await shootFromTop(page, 'console-money-order-en.png', { fullPage: true })

    // The subscriptions tab: the buyer's plan, and the cancel form opened from the keyboard.
    await page.getByRole('link', { name: 'All orders' }).click()
    await page.getByRole('navigation', { name: 'Money sections' }).getByRole('link', { name: 'Subscriptions' }).click()
    const plan = page.getByTestId('money-subscriptions').getByRole('row').filter({ hasText: 'plus' })
    await plan.waitFor()
    await plan.getByRole('button', { name: 'Cancel plan' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('radio', { name: 'Now (the plan ends at once)' }).waitFor()
    // The keyboard carries on inside the form that replaced the button.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('radio')
    await shootFromTop(page, 'console-money-subscriptions-en.png')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Keep it' }).click()
    await page.context().close()
  })

  it('shows the money console in Arabic, right to left', async () => {
    const page = await adminPage('ar')
    await page.goto(`${server.url}/ar/console/money`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('money-orders').waitFor()
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('المال')
    await shootFromTop(page, 'console-money-orders-ar.png')
    await page.getByTestId('money-orders').getByRole('link').first().click()
    await page.getByTestId('order-refunds').waitFor()
    await page.getByRole('button', { name: 'اعرض ما سيحدث' }).waitFor()
    await shootFromTop(page, 'console-money-order-ar.png', { fullPage: true })
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.goto(`${server.url}/ar/console/money?tab=webhooks`)
    await page.getByTestId('money-webhooks').waitFor()
    await shootFromTop(page, 'console-money-webhooks-ar.png')
    await page.context().close()
  })
})
