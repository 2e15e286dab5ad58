import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { totpCode } from '#server/modules/staff/totp.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
import { HYDRATED, personPage } from './browser.ts'

// The steps the console's browser tests share: staff made from the command line, the second
// factor enrolled (through the API or the pages), the console opened in a tab, a code entered,
// the fresh-confirmation refusal played once, and a card order paid at the Stripe double. What
// each test checks stays in the test.

const root = path.resolve(import.meta.dirname, '..', '..')

type Login = { email: string; password: string }
type SeedUser = Login & { username: string }
export type StaffRole = 'admin' | 'moderator'

/**
 * A fresh data directory (named after `prefix`) with `users` seeded and `staff` granted their
 * role through `npm run admin`: staff are made from the command line before the server opens
 * the database (ADR 054). Pass the directory to the server as DATA_DIR.
 */
export function seedStaff(prefix: string, users: SeedUser[], staff: [email: string, role: StaffRole][]): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix))
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }
  const userArgs = users.flatMap((u) => ['--user', `${u.username}:${u.email}:${u.password}`])
  execFileSync(process.execPath, ['db/seed/seed-cli.ts', ...userArgs], { cwd: root, env, stdio: 'ignore' })
  for (const [email, role] of staff)
    execFileSync(process.execPath, ['scripts/admin.ts', 'grant', email, '--role', role], {
      cwd: root,
      env,
      stdio: 'ignore',
    })
  return dataDir
}

/** The code an authenticator app shows for `secret`, `aheadMs` from now (30_000: the next step's). */
export const codeFor = (secret: string, aheadMs = 0) => totpCode(secret, Date.now() + aheadMs)

/**
 * A call to the API with the bearer `token` (and the console token when given); the answer's
 * status and JSON body.
 */
export async function callApi<T = Record<string, unknown>>(
  serverUrl: string,
  token: string,
  route: string,
  init: { method?: string; body?: unknown; consoleToken?: string } = {},
): Promise<{ status: number; body: { data: T } }> {
  const res = await fetch(`${serverUrl}/api${route}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.consoleToken === undefined ? {} : { 'x-console-token': init.consoleToken }),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  })
  return { status: res.status, body: (await res.json()) as { data: T } }
}

/**
 * The staff member's second factor, enrolled through the API with the current code: the secret
 * (for later codes) and the console token the page keeps per tab. The enabling code's step is
 * spent afterwards: the next code to enter is `codeFor(secret, 30_000)`.
 */
export async function enrollByApi(serverUrl: string, token: string): Promise<{ secret: string; consoleToken: string }> {
  const setup = await callApi<{ secret: string }>(serverUrl, token, '/admin/2fa/setup', { method: 'POST' })
  const secret = setup.body.data.secret
  const enabled = await callApi<{ consoleToken: string }>(serverUrl, token, '/admin/2fa/enable', {
    method: 'POST',
    body: { code: codeFor(secret) },
  })
  return { secret, consoleToken: enabled.body.data.consoleToken }
}

/**
 * On the way into the console without a second factor: waits for the enrollment page, presses
 * its Start (`start`: the button's words in the page's language) and returns the key it shows.
 */
export async function startEnrollment(page: Page, start = 'Start'): Promise<string> {
  await page.waitForURL((url) => url.pathname.endsWith('/console/second-factor'))
  await page.waitForFunction(HYDRATED)
  await page.getByRole('button', { name: start }).click()
  return ((await page.getByTestId('totp-secret').textContent()) ?? '').replaceAll(' ', '')
}

/** Enters the current code for `secret` on the enrollment page and turns the second factor on. */
export async function turnOnSecondFactor(page: Page, secret: string) {
  await page.getByLabel('The code the app shows').fill(codeFor(secret))
  await page.getByRole('button', { name: 'Turn on' }).click()
}

/** The whole enrollment through the English pages, up to the console's overview; returns the key. */
export async function enrollInPage(page: Page): Promise<string> {
  const secret = await startEnrollment(page)
  await turnOnSecondFactor(page, secret)
  await page.getByRole('button', { name: 'I have saved them' }).click()
  await page.waitForURL((url) => url.pathname === '/console')
  return secret
}

/**
 * An enrolled staff member's way in (English page): the code of the next step (the enabling
 * code's step is spent) on the second-factor page, which then goes where it was asked for.
 */
export async function unlockConsole(page: Page, secret: string) {
  await page.waitForURL((url) => url.pathname === '/console/second-factor')
  await page.waitForFunction(HYDRATED)
  await page.getByLabel('Code or recovery code').fill(codeFor(secret, 30_000))
  await page.getByRole('button', { name: 'Open the console' }).click()
}

/** Logs in through the login page of `locale` (its fields by type, whatever their words). */
export async function signInByFields(page: Page, serverUrl: string, user: Login, locale: 'en' | 'ar') {
  await page.goto(`${serverUrl}${locale === 'en' ? '' : `/${locale}`}/login`)
  await page.waitForFunction(HYDRATED)
  await page.locator('input[type=email]').fill(user.email)
  await page.locator('input[type=password]').fill(user.password)
  await page.locator('form button[type=submit]').click()
  await page.getByTestId('account-link').waitFor()
}

/**
 * A tab of `user` (a person's page with the `lang` cookie of `locale`), signed in through that
 * locale's login page, holding the console token of their enrollment as the console keeps it.
 */
export async function consoleTab(
  browser: Browser,
  serverUrl: string,
  user: Login,
  consoleToken: string,
  locale: 'en' | 'ar' = 'en',
): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await personPage(browser, serverUrl, { lang: locale })
  await signInByFields(page, serverUrl, user, locale)
  await page.evaluate((token) => sessionStorage.setItem('taleweave:console-token', token), consoleToken)
  return { page, errors }
}

/**
 * Plays the server's "confirm with a fresh code" refusal once for the calls matching `pattern`
 * (the unlock counts as a fresh confirmation for five minutes), so the dialog's path runs.
 * Returns whether the refusal was played.
 */
export async function refuseOnceForConfirmation(page: Page, pattern: string): Promise<() => boolean> {
  let refused = false
  await page.route(pattern, async (route) => {
    if (refused) return route.continue()
    refused = true
    await route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ code: 403, success: false, error: 'CONFIRMATION_REQUIRED', message: 'Confirm.' }),
    })
  })
  return () => refused
}

/** Sends a Stripe webhook delivery (a double's signed event) to the server; returns its status. */
export async function deliverWebhook(serverUrl: string, delivery: { payload: string; signature: string }) {
  const res = await fetch(`${serverUrl}/api/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
    body: delivery.payload,
  })
  return res.status
}

/**
 * The token's user pays the Plus plan (monthly) by card at the Stripe double; `deliver` sends
 * the checkout's webhooks (the test checks each arrives). The double's events are then taken, so
 * the next ones are the test's own. Returns the order's id.
 */
export async function buyPlusByCard(
  serverUrl: string,
  stripe: StripeApiDouble,
  token: string,
  deliver: (delivery: { payload: string; signature: string }) => Promise<void>,
): Promise<string> {
  const start = await callApi(serverUrl, token, '/subscription', {
    method: 'POST',
    body: { paymentType: 'card', planId: 'plus', billingCycle: 'monthly' },
  })
  const orderId = String(start.body.data.orderId)
  const session = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId)
  if (!session) throw new Error('no Checkout Session')
  const { completed, invoicePaid } = stripe.paidCheckout(session)
  await deliver(completed)
  await deliver(invoicePaid)
  stripe.takeEvents()
  return orderId
}
