import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
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
import { codeFor, refuseOnceForConfirmation, seedStaff, startEnrollment, turnOnSecondFactor } from './console-staff.ts'

// Issue 23 items 1, 6, 7 (browser side): an admin made with `npm run admin` enrolls the second
// factor, keeps the recovery codes, grants a moderator through the fresh-confirmation dialog,
// finds that in the audit log and exports it; a normal user meets the staff-only page.

const admin = { username: 'console_admin', email: 'admin@example.test', password: 'a lighthouse keeps the ledger' }
const member = { username: 'plain_reader', email: 'reader@example.test', password: 'a reader of quiet harbours' }
const outsider = { username: 'just_a_user', email: 'user@example.test', password: 'no keys to any door here' }

async function shoot(page: Page, file: string) {
  await shootFromTop(page, file)
  expect(await seriousA11yViolations(page)).toEqual([])
}

describe.skipIf(!chromiumPath)('the console in a browser', () => {
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    const dataDir = seedStaff('rp-e2e-', [admin, member, outsider], [[admin.email, 'admin']])
    server = await startServer({ DATA_DIR: dataDir })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
  })

  it('enrolls, grants a moderator with a fresh code, finds it in the audit log and exports it; English and Arabic', async () => {
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, admin)

    const response = await page.goto(`${server.url}/console`)
    expect(response?.headers()['cache-control']).toBe('private, no-store')
    expect(await page.locator('meta[name="robots"]').last().getAttribute('content')).toContain('noindex')
    const secret = await startEnrollment(page)
    const link = await page.getByTestId('otpauth-link').getAttribute('href')
    expect(link).toMatch(/^otpauth:\/\/totp\//)
    const grouped = (await page.getByTestId('totp-secret').textContent()) ?? ''
    expect(grouped).toMatch(/^(\S{4} )+\S{1,4}$/)
    const codeField = page.getByLabel('The code the app shows')
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code')
    expect(await codeField.getAttribute('inputmode')).toBe('numeric')
    await turnOnSecondFactor(page, secret)
    await expect.poll(() => page.getByTestId('recovery-codes').locator('li').count()).toBe(10)
    await shoot(page, 'console-recovery-en.png')
    await page.getByRole('button', { name: 'I have saved them' }).click()
    await page.waitForURL((url) => url.pathname === '/console')
    await page.getByTestId('console-role').getByText('Administrator').waitFor()
    await shoot(page, 'console-overview-en.png')

    // The unlock counts as a fresh confirmation for five minutes: the server's refusal after them
    // is played once here, so the dialog's path (confirm with a new code, repeat the call) runs.
    const refusedOnce = await refuseOnceForConfirmation(page, '**/api/admin/staff/grant')
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Staff' }).click()
    await page.getByTestId('staff-table').waitFor()
    await page.getByLabel('E-mail').fill(member.email)
    await page.getByLabel('Role').selectOption('moderator')
    await page.getByTestId('grant-staff').click()
    const dialog = page.getByTestId('confirm-code-dialog')
    await dialog.waitFor()
    await shoot(page, 'console-confirm-en.png')
    // The enabling code's step is spent: the next step's code (inside the allowed drift).
    await dialog.getByLabel('Code from your authenticator app').fill(codeFor(secret, 30_000))
    await dialog.getByRole('button', { name: 'Confirm' }).click()
    await page.getByText(`${member.email} is now staff.`).waitFor()
    await page.getByTestId('staff-table').getByText(member.email).waitFor()
    expect(refusedOnce()).toBe(true)
    // One's own row offers neither Revoke nor Reset (the server refuses the first, the second would
    // shut one out), and says so; another member's row offers both.
    const rowOf = (email: string) => page.getByTestId('staff-table').getByRole('row').filter({ hasText: email })
    await rowOf(admin.email).getByTestId('staff-self-note').waitFor()
    expect(await rowOf(admin.email).getByRole('button').count()).toBe(0)
    expect(
      await rowOf(member.email)
        .getByRole('button', { name: `Revoke: ${member.email}` })
        .count(),
    ).toBe(1)
    expect(
      await rowOf(member.email)
        .getByRole('button', { name: `Reset second factor: ${member.email}` })
        .count(),
    ).toBe(1)
    await shoot(page, 'console-staff-en.png')

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click()
    const table = page.getByTestId('audit-table')
    await table.getByText('staff.grant').first().waitFor()
    await table.getByText('Staff member').first().waitFor()
    await page.getByLabel('Target type').selectOption({ label: 'Staff member' })
    await shoot(page, 'console-audit-en.png')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export').click()])
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'console-csv-')), 'audit.csv')
    await download.saveAs(file)
    const csv = readFileSync(file, 'utf8')
    expect(csv.split(/\r?\n/)[0]).toBe('at,actor_id,actor,action,target_type,target_id,note,details')
    expect(csv).toContain('staff.grant')

    // Arabic, right to left, the same tab (the console token is kept per tab).
    await page.goto(`${server.url}/ar/console/audit`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('audit-table').waitFor()
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByTestId('audit-table').getByText('عضو في فريق العمل').first().waitFor()
    await shoot(page, 'console-audit-ar.png')
    await page.goto(`${server.url}/ar/console/staff`)
    await page.getByTestId('staff-table').waitFor()
    await shoot(page, 'console-staff-ar.png')
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows a normal user the staff-only page and no console', async () => {
    for (const lang of ['en', 'ar']) {
      const { context, page } = await personPage(browser, server.url)
      await logIn(page, server.url, outsider)
      await page.goto(`${server.url}${lang === 'en' ? '' : `/${lang}`}/console/audit`)
      await page.waitForFunction(HYDRATED)
      await page.getByTestId('staff-only').waitFor()
      if (lang === 'en') await page.getByText("This area is for the site's staff.").waitFor()
      expect(await page.getByTestId('audit-table').count()).toBe(0)
      expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0)
      await shoot(page, `console-staff-only-${lang}.png`)
      await context.close()
    }
  })
})
