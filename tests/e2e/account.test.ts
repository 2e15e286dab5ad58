import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
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

const leaver = { username: 'leaver', email: 'leaver@example.test', password: 'a kite over the dunes' }
const arabic = { username: 'rawiya', email: 'rawiya@example.test', password: 'a lamp by the window' }
const subscriber = { username: 'plenty', email: 'plenty@example.test', password: 'a boat in the reeds' }
const arabicSubscriber = { username: 'samira', email: 'samira@example.test', password: 'a well in the garden' }
const traveller = { username: 'traveller', email: 'traveller@example.test', password: 'a tram through the fog' }
const arabicTraveller = { username: 'layla', email: 'layla@example.test', password: 'a lantern on the stair' }
/** The plan's end as the page writes it: Intl, long date, UTC. */
const longDate = (tag: string, iso: string) =>
  new Intl.DateTimeFormat(tag, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso))

describe.skipIf(!chromiumPath)('the account page in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    server = await startServer(
      {},
      { users: [leaver, arabic, subscriber, arabicSubscriber, traveller, arabicTraveller] },
    )
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  /** The plan the page's user holds, read with the page's own token. */
  const currentPlan = (page: Page) =>
    page.evaluate(async () => {
      const response = await fetch('/api/subscription/current', {
        headers: { authorization: `Bearer ${localStorage.getItem('token')}` },
      })
      return (await response.json()).data.subscription as { currentPeriodEnd: string; renews: boolean } | null
    })

  async function logIn(user: typeof leaver, locale: 'en' | 'ar') {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, acceptDownloads: true })
    await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
    const page = await context.newPage()
    const prefix = locale === 'en' ? '' : `/${locale}`
    await page.goto(`${server.url}${prefix}/login`)
    await page.waitForFunction(HYDRATED)
    await page.locator('input[type=email]').fill(user.email)
    await page.locator('input[type=password]').fill(user.password)
    await page.locator('form button[type=submit]').click()
    await page.getByTestId('account-link').waitFor()
    return { context, page, prefix }
  }

  it('downloads the data, deletes the account, and the login then fails', async () => {
    const { context, page } = await logIn(leaver, 'en')
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    // The avatar in the top bar leads to the account page.
    await page.getByTestId('account-link').click()
    await page.waitForURL(`${server.url}/account`)
    await page.getByTestId('account-email').filter({ hasText: leaver.email }).waitFor()
    await page.getByTestId('account-username').filter({ hasText: leaver.username }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account.png'), fullPage: true })

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-data').click()])
    expect(download.suggestedFilename()).toMatch(/^taleweave-data-\d{4}-\d{2}-\d{2}\.json$/)
    const data = JSON.parse(await readFile((await download.path()) ?? '', 'utf8'))
    expect(data.profile).toMatchObject({ username: leaver.username, email: leaver.email })
    expect(JSON.stringify(data)).not.toContain('passwordHash')

    // The app's one dialog shell: named and described, focus inside, Escape closes it and gives
    // focus back to the button that opened it.
    await page.getByTestId('delete-account').focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' })
    await dialog.waitFor()
    expect(await dialog.getAttribute('aria-describedby')).toBeTruthy()
    expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('delete-account')

    // A wrong password is refused in words, and nothing happens.
    await page.getByTestId('delete-account').click()
    await dialog.waitFor()
    await dialog.getByLabel('Enter your password to confirm').fill('not my password')
    await dialog.getByRole('button', { name: 'Delete for good' }).click()
    await dialog.getByRole('alert').filter({ hasText: 'The password is wrong.' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-delete-dialog.png') })

    await dialog.getByLabel('Enter your password to confirm').fill(leaver.password)
    await dialog.getByRole('button', { name: 'Delete for good' }).click()
    await page.waitForURL(`${server.url}/`)
    await page.getByText('Your account was deleted.').waitFor()
    await page.getByRole('link', { name: 'Login' }).first().waitFor()
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull()

    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: leaver.email, password: leaver.password }),
    })
    expect(login.status).toBe(401)
    expect(errors).toEqual([])
    await context.close()
  })

  it('buys a card plan in the sandbox, cancels it on the account page, sees its end date, then may delete', async () => {
    const { context, page } = await logIn(subscriber, 'en')
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    await page.goto(`${server.url}/subscribe`)
    await page.waitForFunction(HYDRATED)
    const plus = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Plus' }) })
    await plus.getByRole('button', { name: 'Subscribe with credit card' }).click()
    await page.waitForURL(/\/subscribe\/sandbox\?orderId=ord_/)
    await page.getByRole('button', { name: 'Pay', exact: true }).click()
    await page.waitForURL(/\/subscribe\/success\?orderId=ord_/)
    await page.getByText('Your Plus plan is active.').waitFor()

    await page.goto(`${server.url}/account`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('account-plan').filter({ hasText: 'Plus plan, billed monthly' }).waitFor()
    const plan = await currentPlan(page)
    expect(plan?.renews).toBe(true)
    const end = longDate('en', plan?.currentPeriodEnd ?? '')
    await page
      .getByTestId('plan-renews')
      .filter({ hasText: `Renews on ${end}` })
      .waitFor()

    // The renewing plan blocks the deletion, in words.
    await page.getByTestId('delete-account').click()
    const deletion = page.getByRole('dialog', { name: 'Delete your account for good?' })
    await deletion.getByLabel('Enter your password to confirm').fill(subscriber.password)
    await deletion.getByRole('button', { name: 'Delete for good' }).click()
    await deletion.getByRole('alert').filter({ hasText: 'Your plan still renews automatically.' }).waitFor()
    await deletion.getByRole('button', { name: 'Cancel', exact: true }).click()

    // Going back from the confirmation changes nothing.
    await page.getByRole('button', { name: 'Cancel plan' }).click()
    const dialog = page.getByRole('dialog', { name: 'Cancel your plan?' })
    await dialog.getByText(`You keep it and its diamonds until ${end}`).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-cancel-dialog.png') })
    await dialog.getByRole('button', { name: 'Go back' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await currentPlan(page))?.renews).toBe(true)

    await page.getByRole('button', { name: 'Cancel plan' }).click()
    await dialog.getByRole('button', { name: 'Yes, cancel my plan' }).click()
    await page
      .getByTestId('plan-ends')
      .filter({ hasText: `Your plan ends on ${end}` })
      .waitFor()
    await page.getByText('It will not renew. You keep it and its diamonds until then.').waitFor()
    await page.getByRole('button', { name: 'Keep my plan' }).waitFor()
    expect(await currentPlan(page)).toMatchObject({ renews: false, currentPeriodEnd: plan?.currentPeriodEnd })
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-plan-cancelled.png'), fullPage: true })

    // "Keep my plan" undoes it; the plans page shows the same, under its "Your current plan" mark.
    await page.getByRole('button', { name: 'Keep my plan' }).click()
    await page
      .getByTestId('plan-renews')
      .filter({ hasText: `Renews on ${end}` })
      .waitFor()
    await page.goto(`${server.url}/subscribe`)
    await page.waitForFunction(HYDRATED)
    await plus.getByText('Your current plan').waitFor()
    await plus.getByRole('button', { name: 'Cancel plan' }).click()
    await page
      .getByRole('dialog', { name: 'Cancel your plan?' })
      .getByRole('button', { name: 'Yes, cancel my plan' })
      .click()
    await plus
      .getByTestId('plan-ends')
      .filter({ hasText: `Your plan ends on ${end}` })
      .waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'pricing-plan-cancelled.png'), fullPage: true })

    // No longer renewing: the account can go.
    await page.goto(`${server.url}/account`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('plan-ends').waitFor()
    await page.getByTestId('delete-account').click()
    await deletion.getByLabel('Enter your password to confirm').fill(subscriber.password)
    await deletion.getByRole('button', { name: 'Delete for good' }).click()
    await page.waitForURL(`${server.url}/`)
    await page.getByText('Your account was deleted.').waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it('cancels a plan in Arabic, right to left, with the end date in Arabic', async () => {
    const { context, page, prefix } = await logIn(arabicSubscriber, 'ar')
    // Bought through the API as the page would, then settled by the sandbox.
    const settled = await page.evaluate(async () => {
      const headers = { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' }
      const start = await fetch('/api/subscription', {
        method: 'POST',
        headers,
        body: JSON.stringify({ paymentType: 'card', planId: 'pro', billingCycle: 'yearly', locale: 'ar' }),
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
    await page.goto(`${server.url}${prefix}/account`)
    await page.waitForFunction(HYDRATED)
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await page.getByTestId('account-plan').filter({ hasText: 'خطة Pro، تُدفع سنويًا' }).waitFor()
    const end = longDate('ar', (await currentPlan(page))?.currentPeriodEnd ?? '')
    await page.getByRole('button', { name: 'إلغاء الخطة' }).click()
    const dialog = page.getByRole('dialog', { name: 'هل تريد إلغاء خطتك؟' })
    await dialog.getByText(end).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'account-cancel-dialog-ar.png') })
    await dialog.getByRole('button', { name: 'نعم، ألغِ خطتي' }).click()
    await page
      .getByTestId('plan-ends')
      .filter({ hasText: `تنتهي خطتك في ${end}` })
      .waitFor()
    await page.getByRole('button', { name: 'الإبقاء على خطتي' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-plan-cancelled-ar.png'), fullPage: true })
    await context.close()
  })

  /** Logs in through the API, as another device would, and returns its token pair. */
  async function otherDevice(user: typeof leaver): Promise<{ token: string; refreshToken: string }> {
    const res = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    })
    expect(res.status).toBe(200)
    return (await res.json()).data
  }
  const refreshStatus = async (refreshToken: string) =>
    (
      await fetch(`${server.url}/api/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
      })
    ).status
  const userInfoStatus = async (token: string) =>
    (await fetch(`${server.url}/api/userInfo`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }))
      .status

  it('logs out everywhere after a confirmation: this browser lands on the login page, every login is over', async () => {
    const phone = await otherDevice(traveller)
    const { context, page } = await logIn(traveller, 'en')
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${server.url}/account`)
    await page.waitForFunction(HYDRATED)
    const section = page.getByRole('region', { name: 'Log out everywhere' })
    await section.getByText('Ends your login on every device and browser, this one included.').waitFor()
    await section.screenshot({ path: path.join(screenshotDir, 'account-logout-everywhere.png') })
    const ownRefreshToken = await page.evaluate(() => localStorage.getItem('refreshToken'))
    const ownToken = await page.evaluate(() => localStorage.getItem('token'))
    expect(ownRefreshToken).toBeTruthy()

    // Cancelling changes nothing.
    await page.getByTestId('logout-everywhere').click()
    const dialog = page.getByRole('dialog', { name: 'Log out on every device?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect(await userInfoStatus(phone.token)).toBe(200)

    await page.getByTestId('logout-everywhere').click()
    await dialog.waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-logout-everywhere-dialog.png') })
    await dialog.getByRole('button', { name: 'Log out everywhere' }).click()
    await page.waitForURL(`${server.url}/login`)
    await page.getByText('You were logged out on every device.').waitFor()
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('refreshToken')])).toEqual([
      null,
      null,
    ])

    // This browser's login and the other device's are both over, access tokens included.
    expect(await refreshStatus(ownRefreshToken ?? '')).toBe(401)
    expect(await refreshStatus(phone.refreshToken)).toBe(401)
    expect(await userInfoStatus(ownToken ?? '')).toBe(401)
    expect(await userInfoStatus(phone.token)).toBe(401)
    // Logging in again works.
    expect(await userInfoStatus((await otherDevice(traveller)).token)).toBe(200)
    expect(errors).toEqual([])
    await context.close()
  })

  it('logs out everywhere in Arabic, right to left', async () => {
    const { context, page, prefix } = await logIn(arabicTraveller, 'ar')
    await page.goto(`${server.url}${prefix}/account`)
    await page.waitForFunction(HYDRATED)
    const section = page.getByRole('region', { name: 'تسجيل الخروج من كل مكان' })
    await section.waitFor()
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await section.screenshot({ path: path.join(screenshotDir, 'account-logout-everywhere-ar.png') })
    const ownRefreshToken = await page.evaluate(() => localStorage.getItem('refreshToken'))
    await page.getByTestId('logout-everywhere').click()
    const dialog = page.getByRole('dialog', { name: 'تسجيل الخروج من كل الأجهزة؟' })
    await dialog.waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-logout-everywhere-dialog-ar.png') })
    await dialog.getByTestId('confirm-logout-everywhere').click()
    await page.waitForURL(`${server.url}${prefix}/login`)
    await page.getByText('تم تسجيل خروجك من كل الأجهزة.').waitFor()
    expect(await refreshStatus(ownRefreshToken ?? '')).toBe(401)
    await context.close()
  })

  it('reads right to left in Arabic', async () => {
    const { context, page, prefix } = await logIn(arabic, 'ar')
    await page.goto(`${server.url}${prefix}/account`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'حسابي' }).waitFor()
    await page.getByTestId('account-email').filter({ hasText: arabic.email }).waitFor()
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'account-ar.png'), fullPage: true })
    await context.close()
  })
})
