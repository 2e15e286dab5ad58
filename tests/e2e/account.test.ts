import { readFile } from 'node:fs/promises'
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
const leaver = { username: 'leaver', email: 'leaver@example.test', password: 'a kite over the dunes' }
const arabic = { username: 'rawiya', email: 'rawiya@example.test', password: 'a lamp by the window' }

describe.skipIf(!chromiumPath)('the account page in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    server = await startServer({}, { users: [leaver, arabic] })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
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

    // A wrong password is refused in words, and nothing happens.
    await page.getByTestId('delete-account').click()
    const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' })
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
