import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  launchBrowser,
  logIn,
  personPage,
  type RunningServer,
  seriousA11yViolations,
  shootFromTop,
  startServer,
  stopServerAndBrowser,
} from './browser.ts'
import { callApi, codeFor, consoleTab, enrollByApi, refuseOnceForConfirmation, seedStaff } from './console-staff.ts'

// The people console end to end (issue 23 item 3, ADRs 055 and 060): an admin with TOTP finds a
// user by e-mail, grants diamonds with a note, suspends them through the fresh-code dialog (the
// user's open page is logged out and their login refused), restores them; English and Arabic.

const admin = { username: 'keeper_of_people', email: 'keeper@example.test', password: 'a register by the lamp' }
const reader = { username: 'wandering_reader', email: 'wanderer@example.test', password: 'pages in the rain' }

describe.skipIf(!chromiumPath)('the people console in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let consoleToken = ''
  let secret = ''
  let readerId = ''

  const api = async (token: string, route: string, init: { method?: string; body?: unknown } = {}) =>
    (await callApi(server.url, token, route, { ...init, consoleToken })).body

  beforeAll(async () => {
    const dataDir = seedStaff('rp-e2e-people-', [admin, reader], [[admin.email, 'admin']])
    server = await startServer({ DATA_DIR: dataDir })
    browser = await launchBrowser()
    // The admin's second factor, enrolled through the API: the console token the page keeps per tab.
    ;({ secret, consoleToken } = await enrollByApi(server.url, await apiLogin(server.url, admin)))
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
  })

  /** The admin signed in (through the English login page) with the console open in this tab. */
  const adminPage = () => consoleTab(browser, server.url, admin, consoleToken)

  async function shoot(page: Page, file: string, fullPage = false) {
    await shootFromTop(page, file, { fullPage })
    expect(await seriousA11yViolations(page)).toEqual([])
  }

  it('finds a user by e-mail, grants diamonds, suspends them (their open page is logged out), restores them', async () => {
    // The reader, signed in with a public character, their page open.
    const readerToken = await apiLogin(server.url, reader)
    await createCharacter(server.url, readerToken, { name: 'Lantern of the Moors' })
    const balanceOf = async (token: string) => Number((await api(token, '/points')).data.totalPoints)
    const welcome = await balanceOf(readerToken)
    const user = await personPage(browser, server.url)
    await logIn(user.page, server.url, reader)
    await user.page.goto(`${server.url}/characters/mine`)
    await user.page.waitForFunction(HYDRATED)
    await user.page.getByText('Lantern of the Moors').first().waitFor()

    const { page, errors } = await adminPage()
    await page.goto(`${server.url}/console`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click()
    await page.waitForURL((url) => url.pathname === '/console/people')
    await page.getByText('Find a person by their e-mail, username or user ID.').waitFor()
    const search = page.getByLabel('E-mail, username or user ID')

    // Nobody: the empty state. Then the reader by their e-mail in another case, from the keyboard.
    await search.fill('nobody-at-all@example.test')
    await search.press('Enter')
    await page.getByTestId('people-empty').waitFor()
    await search.fill(reader.email.toUpperCase())
    await search.press('Enter')
    const results = page.getByTestId('people-results')
    await results.waitFor()
    expect(await results.getByRole('row').count()).toBe(2)
    const row = results.getByRole('row').filter({ hasText: reader.email })
    expect(await row.innerText()).toContain('Active')
    await shoot(page, 'console-people-search-en.png')
    await row.getByRole('link', { name: reader.username }).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL((url) => url.pathname.startsWith('/console/people/'))
    readerId = page.url().split('/').pop() ?? ''
    await page.getByRole('heading', { level: 1, name: reader.username }).waitFor()
    await expect.poll(() => page.getByTestId('person-balance').innerText()).toBe(welcome.toLocaleString('en'))
    await page.getByTestId('person-characters').getByText('Lantern of the Moors').waitFor()

    // Grant diamonds: the note is required; then the ledger and the balance show it.
    const grant = page.getByTestId('action-diamonds')
    await grant.getByLabel('Number of diamonds').fill('1,200')
    await grant.getByRole('button', { name: 'Apply' }).click()
    await grant.getByRole('alert').filter({ hasText: 'Write why' }).waitFor()
    expect(await balanceOf(readerToken)).toBe(welcome)
    await grant.getByLabel('Note (why; kept in the audit log)').fill('Goodwill after the outage')
    await grant.getByRole('button', { name: 'Apply' }).click()
    await page.getByTestId('person-done').filter({ hasText: 'The balance is now' }).waitFor()
    expect(await page.getByTestId('person-done').innerText()).toBe(
      `Done. The balance is now ${(welcome + 1200).toLocaleString('en')}.`,
    )
    expect(await balanceOf(readerToken)).toBe(welcome + 1200)
    const ledgerRow = page.getByTestId('person-ledger').getByRole('row').nth(1)
    await expect.poll(() => ledgerRow.innerText()).toContain('Granted by staff')
    expect(await ledgerRow.innerText()).toContain('+1,200')
    await shoot(page, 'console-people-person-en.png', true)

    // Suspend: the last code is old as far as this call goes (the server's refusal is played once),
    // so the fresh-code dialog asks, and the call repeats after it.
    const refusedOnce = await refuseOnceForConfirmation(page, '**/api/admin/people/*/suspend')
    const suspend = page.getByTestId('action-suspend')
    await suspend.getByLabel('Note (why; kept in the audit log)').fill('Spam ring in the comments')
    await suspend.getByRole('button', { name: 'Suspend' }).click()
    const dialog = page.getByTestId('confirm-code-dialog')
    await dialog.waitFor()
    await dialog.getByLabel('Code from your authenticator app').fill(codeFor(secret, 30_000))
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await page.getByTestId('person-done').filter({ hasText: 'Suspended: their logins have ended.' }).waitFor()
    expect(refusedOnce()).toBe(true)
    await page.getByRole('heading', { level: 1 }).getByTestId('suspended-mark').waitFor()
    const suspension = await page.getByTestId('person-suspension').innerText()
    expect(suspension).toContain(admin.username)
    expect(suspension).toContain('Spam ring in the comments')
    await page.getByTestId('person-characters').getByText('Hidden while its creator is suspended').waitFor()
    await shoot(page, 'console-people-suspended-en.png')

    // The reader's open page: the next thing it asks of the server sends them to the login, where
    // the right password is answered "suspended".
    await user.page.getByTestId('account-link').click()
    await user.page.waitForURL((url) => url.pathname === '/login')
    await user.page.waitForFunction(HYDRATED)
    await user.page.getByLabel('E-mail').fill(reader.email)
    await user.page.getByLabel('Password').fill(reader.password)
    await user.page.getByRole('button', { name: 'Log in' }).click()
    await user.page.getByText('This account is suspended.').waitFor()
    expect(await user.page.getByRole('button', { name: 'Logout' }).count()).toBe(0)

    // Restore: they log in again.
    const restore = page.getByTestId('action-restore')
    await restore.getByLabel('Note (why; kept in the audit log)').fill('Cleared on appeal')
    await restore.getByRole('button', { name: 'End the suspension' }).click()
    await page.getByTestId('person-done').filter({ hasText: 'The suspension has ended.' }).waitFor()
    expect(await page.getByTestId('person-suspension').innerText()).toBe('Not suspended')
    await logIn(user.page, server.url, reader)

    // One audit record per action, with its note.
    const adminToken = await apiLogin(server.url, admin)
    const audit = await api(adminToken, `/admin/audit?targetId=${readerId}`)
    const records = (audit.data.items as { action: string; note: string }[]).map((r) => [r.action, r.note])
    expect(records).toEqual([
      ['user.restore', 'Cleared on appeal'],
      ['user.suspend', 'Spam ring in the comments'],
      ['diamonds.grant', 'Goodwill after the outage'],
    ])

    // Their orders in the money console, filtered to them.
    await page.getByRole('link', { name: "This person's orders" }).click()
    await page.waitForURL((url) => url.pathname === '/console/money')
    expect(await page.getByLabel('User ID').inputValue()).toBe(readerId)
    expect(errors).toEqual([])
    expect(user.errors).toEqual([])
    await user.context.close()
    await page.context().close()
  })

  it('shows the people pages in Arabic, right to left', async () => {
    const { page, errors } = await adminPage()
    await page.goto(`${server.url}/ar/console/people?q=${encodeURIComponent(reader.email)}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('people-results').waitFor()
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('الأشخاص')
    await shoot(page, 'console-people-search-ar.png')
    await page.getByTestId('people-results').getByRole('link', { name: reader.username }).click()
    await page.getByTestId('person-ledger').waitFor()
    await page.getByRole('heading', { name: 'الإجراءات' }).waitFor()
    await shoot(page, 'console-people-person-ar.png', true)
    expect(errors).toEqual([])
    await page.context().close()
  })
})
