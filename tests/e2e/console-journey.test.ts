import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALE_TAGS } from '#contracts/locales.ts'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
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
} from './browser.ts'
import {
  buyPlusByCard,
  callApi,
  codeFor,
  deliverWebhook,
  enrollByApi,
  seedStaff,
  unlockConsole,
} from './console-staff.ts'

// Issue 23's console journey (ADRs 054, 056, 058): a user reports a character, an admin logs in,
// passes the second factor, opens the reports queue and the report, hides the character with a
// note (the queue empties, the reporter sees the outcome, the character leaves the listing), then
// refunds part of the reporter's card order in the money console and sees the diamonds taken back.
// Once in English, then in Arabic (right to left) in the same tab: the console token is per tab.

const root = path.resolve(import.meta.dirname, '..', '..')
const admin = { username: 'journey_admin', email: 'journey-admin@example.test', password: 'a keeper of two ledgers' }
const creator = { username: 'smuggler', email: 'smuggler@example.test', password: 'crates under the pier' }
const reporters = {
  en: { username: 'watchful', email: 'watchful@example.test', password: 'an eye on the harbour' },
  ar: { username: 'raqib', email: 'raqib@example.test', password: 'a lantern by the quay' },
}
const characters = {
  en: {
    name: 'Captain Brine',
    introduction: 'A *smuggler* who sells sea charts that lead nowhere.',
    firstMessage: 'Psst, {{user}}. Want a map to the sunken city? Only ten coins.',
    tags: ['Smuggling'],
    sourceLanguage: 'en',
  },
  ar: {
    name: 'القبطان ملح',
    introduction: 'مهرّب يبيع *خرائط بحرية* لا تقود إلى أي مكان.',
    firstMessage: 'اسمع يا {{user}}، أتريد خريطة المدينة الغارقة؟ عشر قطع فقط.',
    tags: ['تهريب'],
    sourceLanguage: 'ar',
  },
}
const keys = { secretKey: 'sk_test_console_journey', webhookSecret: 'whsec_test_console_journey' }

type Strings = Record<string, Record<string, unknown>>
const strings = (locale: string, ns: string) =>
  JSON.parse(readFileSync(path.join(root, 'locales', locale, `${ns}.json`), 'utf8')) as Strings
/** A string of a locale file by its dotted key, with `{{name}}` placeholders filled. */
function word(locale: string, ns: string, key: string, values: Record<string, string> = {}): string {
  let value: unknown = strings(locale, ns)
  for (const part of key.split('.')) value = (value as Record<string, unknown>)[part]
  if (typeof value !== 'string') throw new Error(`no ${locale}/${ns}:${key}`)
  return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '')
}

describe.skipIf(!chromiumPath)('the console journey in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let stripe: StripeApiDouble

  const api = async (token: string, route: string) => (await callApi(server.url, token, route)).body
  const deliver = async (delivery: { payload: string; signature: string }) => {
    expect(await deliverWebhook(server.url, delivery)).toBe(200)
  }
  const balanceOf = async (token: string) => Number((await api(token, '/points')).data.totalPoints)
  const listedIds = async (query: string) => {
    const res = await fetch(`${server.url}/api/roles?q=${encodeURIComponent(query)}`)
    return ((await res.json()) as { data: { items: { roleId: string }[] } }).data.items.map((r) => r.roleId)
  }

  // Seeding, the admin command and a first server start (the demo catalogue's pictures).
  beforeAll(async () => {
    stripe = await startStripeApi(keys)
    const users = [admin, creator, reporters.en, reporters.ar]
    const dataDir = seedStaff('rp-e2e-journey-', users, [[admin.email, 'admin']])
    server = await startServer({
      DATA_DIR: dataDir,
      STRIPE_SECRET_KEY: keys.secretKey,
      STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
      STRIPE_API_URL: stripe.url,
      PAYMENTS_SANDBOX: 'false',
    })
    browser = await launchBrowser()
  }, 300_000)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await stripe?.close()
  })

  /** The reporter reports the character from its page, through the dialog. */
  async function reportFromPage(locale: 'en' | 'ar', roleId: string) {
    const reporter = reporters[locale]
    const { context, page } = await personPage(browser, server.url)
    await logIn(page, server.url, reporter)
    await page.goto(`${server.url}${locale === 'en' ? '' : `/${locale}`}/characters/${roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('report-character').click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel(word(locale, 'characters-edit', 'report.reasons.spam')).check()
    await dialog.getByLabel(word(locale, 'characters-edit', 'report.details')).fill(`Scam maps (${locale})`)
    await dialog.getByRole('button', { name: word(locale, 'characters-edit', 'report.send') }).click()
    await page.getByText(word(locale, 'characters-edit', 'report.sent')).waitFor()
    await context.close()
  }

  async function shoot(page: Page, file: string) {
    await shootFromTop(page, file, { fullPage: true })
    expect(await seriousA11yViolations(page)).toEqual([])
  }

  /** One round of the journey in `locale`, in the admin's tab (the console already open). */
  async function journey(page: Page, locale: 'en' | 'ar', secret: string) {
    const w = (ns: string, key: string, values?: Record<string, string>) => word(locale, ns, key, values)
    const prefix = locale === 'en' ? '' : `/${locale}`
    const character = characters[locale]
    const reporterToken = await apiLogin(server.url, reporters[locale])
    const roleId = await createCharacter(server.url, await apiLogin(server.url, creator), character)
    await reportFromPage(locale, roleId)
    const free = await balanceOf(reporterToken)
    const orderId = await buyPlusByCard(server.url, stripe, reporterToken, deliver)
    expect(await balanceOf(reporterToken)).toBe(free + 1000)
    expect(await listedIds(character.name)).toContain(roleId)

    // The queue: the reported character, its reason and creator.
    await page.goto(`${server.url}${prefix}/console`)
    await page.waitForFunction(HYDRATED)
    await page
      .getByRole('navigation', { name: w('console', 'nav.label') })
      .getByRole('link', { name: w('console', 'nav.reports') })
      .click()
    const queue = page.getByTestId('reports-queue')
    const row = queue.getByRole('row').filter({ hasText: character.name })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.innerText()).toContain(w('characters-edit', 'report.reasons.spam'))
    expect(await row.innerText()).toContain(creator.username)
    expect(await page.locator('html').getAttribute('dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr')
    await shoot(page, `console-reports-queue-${locale}.png`)

    // The report: the character as users see it, the reporter's words, no address.
    await row.getByRole('link', { name: character.name }).click()
    await page.waitForURL(`**${prefix}/console/reports/${roleId}`)
    await page
      .getByTestId('preview-introduction')
      .getByText(character.introduction.split('*')[0]?.trim() ?? '')
      .waitFor()
    expect(await page.getByTestId('preview-introduction').locator('em').innerText()).toBe(
      character.introduction.split('*')[1],
    )
    expect(await page.getByTestId('preview-greeting').innerText()).not.toContain('{{user}}')
    expect(await page.getByTestId('preview-creator').innerText()).toBe(creator.username)
    const reports = page.getByTestId('open-reports')
    await reports.getByText(`Scam maps (${locale})`).waitFor()
    expect(await page.locator('body').innerText()).not.toContain(reporters[locale].email)
    expect(await page.getByTestId('preview-greeting').locator('[dir="auto"]').count()).toBe(1)
    await shoot(page, `console-report-detail-${locale}.png`)

    // Hide it with a note: the note is required, then a confirmation, then back to the queue.
    const form = page.getByTestId('handle-form')
    await form.getByRole('radio', { name: w('console-moderation', 'handle.hide') }).check()
    await form.getByRole('button', { name: w('console-moderation', 'form.continue') }).click()
    await form
      .getByRole('alert')
      .filter({ hasText: w('console-moderation', 'form.noteRequired') })
      .waitFor()
    await form.getByLabel(w('console-moderation', 'form.note')).fill(`Sells fake maps; ${locale}`)
    await form.getByRole('button', { name: w('console-moderation', 'form.continue') }).click()
    const confirm = form.getByRole('button', { name: w('console-moderation', 'form.confirm') })
    // The keyboard lands on the confirmation.
    await expect.poll(() => confirm.evaluate((button) => button === document.activeElement)).toBe(true)
    await shoot(page, `console-report-confirm-${locale}.png`)
    await page.keyboard.press('Enter')
    await page.waitForURL((url) => url.pathname === `${prefix}/console/reports`)
    const done = page.getByTestId('moderation-done')
    await done.waitFor()
    expect(await done.innerText()).toContain(w('console-moderation', 'outcome.hidden'))
    await page.getByTestId('queue-empty').waitFor()
    await shoot(page, `console-reports-handled-${locale}.png`)

    // The reporter sees the outcome; the character left the listing and its page.
    const mine = (await api(reporterToken, '/reports/mine')).data.items as { characterId: string; outcome: string }[]
    expect(mine.find((r) => r.characterId === roleId)?.outcome).toBe('hidden')
    expect(await listedIds(character.name)).not.toContain(roleId)
    expect((await fetch(`${server.url}/api/role?roleId=${roleId}`)).status).toBe(404)

    // The money console: part of the reporter's order refunded, the diamonds taken back.
    await page
      .getByRole('navigation', { name: w('console', 'nav.label') })
      .getByRole('link', { name: w('console', 'nav.money') })
      .click()
    const order = page.getByTestId('money-orders').getByRole('row').filter({ hasText: orderId })
    await expect.poll(() => order.count()).toBe(1)
    await order.getByRole('link', { name: orderId }).click()
    await page.waitForURL(`**${prefix}/console/money/orders/${orderId}`)
    await page.getByLabel(w('console-money', 'refund.amount', { currency: 'USD' })).fill('5.00')
    await page.getByLabel(w('console-money', 'refund.note')).fill(`Refund after the report (${locale})`)
    await page.getByRole('button', { name: w('console-money', 'refund.preview') }).click()
    const diamonds = new Intl.NumberFormat(LOCALE_TAGS[locale]).format(500)
    const preview = page.getByTestId('refund-preview')
    await preview.getByText(w('console-money', 'refund.takesBack', { diamonds })).waitFor()
    expect(await balanceOf(reporterToken)).toBe(free + 1000)
    await preview.getByRole('button').first().click()
    const refunded = page.getByTestId('refund-done')
    // The unlock counts as a fresh confirmation for five minutes; on a slow machine they may be
    // over by now, and the console asks for a current code first.
    const dialog = page.getByTestId('confirm-code-dialog')
    await refunded.or(dialog).waitFor()
    if (await dialog.isVisible()) {
      await dialog.getByLabel(w('console', 'code.label')).fill(codeFor(secret))
      await dialog.getByRole('button', { name: w('console', 'confirm.submit') }).click()
    }
    await refunded.waitFor()
    expect(await refunded.innerText()).toContain(diamonds)
    await page.getByTestId('order-refunds').getByText(`Refund after the report (${locale})`).waitFor()
    await expect.poll(() => balanceOf(reporterToken)).toBe(free + 500)
    await shoot(page, `console-refund-${locale}.png`)
  }

  it('an admin with TOTP handles a report end to end and refunds an order (English, then Arabic)', async () => {
    // The admin's authenticator: enrolled through the API; the browser then asks for a code.
    const { secret, consoleToken } = await enrollByApi(server.url, await apiLogin(server.url, admin))
    expect(consoleToken).toBeTruthy()

    const { page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, admin)
    await page.goto(`${server.url}/console/reports`)
    // The enabling code's step is spent: the next step's code (inside the allowed drift).
    await unlockConsole(page, secret)
    await page.waitForURL((url) => url.pathname === '/console/reports')
    await page.getByTestId('queue-empty').or(page.getByTestId('reports-queue')).waitFor()

    await journey(page, 'en', secret)
    await journey(page, 'ar', secret)
    expect(errors).toEqual([])
    await page.context().close()
  }, 360_000)
})
