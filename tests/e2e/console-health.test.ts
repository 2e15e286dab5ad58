import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HealthDaily, HealthJobs } from '#contracts/admin-health.ts'
import type { OpenAiApiDouble } from '#tests/doubles/openai-api.ts'
import { type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import {
  apiLogin,
  chromiumPath,
  HYDRATED,
  personPage,
  type RunningServer,
  seriousA11yViolations,
  shootFromTop,
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'
import { callApi, consoleTab, enrollByApi, seedStaff, signInByFields, startEnrollment } from './console-staff.ts'

// The console's health page end to end (issue 23 item 5, ADR 057): after a sign-up whose
// verification mail the mail server refuses for good (a failed job) and a chat with one reply
// and one model error, an admin with TOTP sees those figures in the charts' tables, retries the
// job once the mail server accepts again, in English and Arabic. And the enrollment QR code
// (item 1) as a staff member without a second factor sees it.

const admin = { username: 'night_watch', email: 'watch@example.test', password: 'a lamp in the signal tower' }
const keeper = { username: 'new_keeper', email: 'keeper@example.test', password: 'a fresh key for the gate' }
const newcomer = { email: 'newcomer@example.test', password: 'first steps on the pier' }

describe.skipIf(!chromiumPath)('the console health page in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let smtp: SmtpDouble
  // Read by the SMTP double on every recipient: refuse now, accept after the fix.
  const smtpBehaviour = { rejectRecipients: true }
  let consoleToken = ''
  let adminToken = ''

  const api = <T>(route: string, init: { method?: string; body?: unknown } = {}) =>
    callApi<T>(server.url, adminToken, route, { ...init, consoleToken })

  beforeAll(async () => {
    smtp = await startSmtpServer(smtpBehaviour)
    const dataDir = seedStaff(
      'rp-e2e-health-',
      [admin, keeper],
      [
        [admin.email, 'admin'],
        [keeper.email, 'moderator'],
      ],
    )
    ;({ server, browser, model } = await startWithModelDouble('The lamp is lit and the tide is low.', {
      env: { DATA_DIR: dataDir, SMTP_URL: `${smtp.url}?pool=false` },
    }))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
    await smtp?.close()
  })

  /** A sign-up through the API, the human check solved here, as the form does it. */
  async function signUp() {
    const challenge = await (await fetch(`${server.url}/api/public/altcha/challenge`)).json()
    const { solveChallenge } = await import('altcha-lib')
    const { deriveKey } = await import('altcha-lib/algorithms/sha')
    const solution = await solveChallenge({ challenge, deriveKey })
    const res = await fetch(`${server.url}/api/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'newcomer',
        email: newcomer.email,
        password: newcomer.password,
        turnstileToken: Buffer.from(JSON.stringify({ challenge, solution })).toString('base64'),
      }),
    })
    expect(res.status).toBe(200)
  }

  /** One reply from the model double, then one the model server fails (a `provider` error). */
  async function chat() {
    const roles = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const roleId = (roles.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)?.roleId
    expect(roleId).toBeTruthy()
    const created = await api<{ id: string }>('/createSession', { method: 'POST', body: { roleId } })
    const sessionId = created.body.data.id
    const ok = await api<{ content: string }>('/chat', {
      method: 'POST',
      body: { sessionId, message: 'Is the lamp lit?' },
    })
    expect([ok.status, ok.body.data.content]).toEqual([200, 'The lamp is lit and the tide is low.'])
    model.fail(500)
    const failed = await api('/chat', { method: 'POST', body: { sessionId, message: 'And the tide?' } })
    expect(failed.status).not.toBe(200)
  }

  /** The admin signed in, the console token of their enrollment kept for the tab. */
  const adminPage = (locale: 'en' | 'ar') => consoleTab(browser, server.url, admin, consoleToken, locale)

  /** Today's row (the last) of a chart's table, opened from its "Show as table". */
  async function todayRow(page: Page, chart: string, show: string) {
    const figure = page.getByTestId(chart)
    await figure.getByText(show).click()
    return figure.getByTestId(`${chart}-table`).locator('tbody tr').last()
  }

  it('shows the day’s figures, the failed job and its retry, the models; English', async () => {
    adminToken = await apiLogin(server.url, admin)
    ;({ consoleToken } = await enrollByApi(server.url, adminToken))
    expect(consoleToken).toBeTruthy()

    await signUp()
    await chat()
    // The verification mail is refused for good (550): its job fails at once, no retry.
    await expect
      .poll(async () => (await api<HealthJobs>('/admin/health/jobs')).body.data.failed.map((j) => j.kind), {
        timeout: 30_000,
      })
      .toEqual(['account-mail'])
    const daily = (await api<HealthDaily>('/admin/health/daily')).body.data
    const today = daily.days[daily.days.length - 1]
    expect(today?.signUps).toBeGreaterThanOrEqual(1)
    expect(today?.userMessages).toBeGreaterThanOrEqual(1)
    expect(today?.replies).toBe(1)
    expect(today?.errors.provider).toBe(1)

    const { page, errors } = await adminPage('en')
    await page.goto(`${server.url}/console`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Health' }).click()
    await page.waitForURL((url) => url.pathname === '/console/health')
    await page.getByRole('heading', { level: 1, name: 'Health' }).waitFor()
    // Each chart is an image with its name, the first and the last day in words.
    const signUps = page.getByRole('img', { name: /^Sign-ups, from .+ to .+$/ })
    await signUps.waitFor()
    expect(await page.getByRole('img', { name: /^Model errors by kind, from / }).count()).toBe(1)
    await page.getByTestId('failed-jobs').waitFor()
    await shootFromTop(page, 'console-health-en.png', { fullPage: true })
    expect(await seriousA11yViolations(page)).toEqual([])

    // The tables say what the charts draw: today's figures, not zero.
    const signUpsRow = await todayRow(page, 'chart-signups', 'Show as table')
    expect((await signUpsRow.locator('td').allInnerTexts()).map(Number)).toEqual([today?.signUps])
    const messagesRow = await todayRow(page, 'chart-messages', 'Show as table')
    expect(await messagesRow.locator('td').allInnerTexts()).toEqual([String(today?.userMessages), '1'])
    const errorsRow = await todayRow(page, 'chart-errors', 'Show as table')
    // Timed out, model server error, unreadable, cut off, stopped by a shutdown.
    expect(await errorsRow.locator('td').allInnerTexts()).toEqual(['0', '1', '0', '0', '0'])
    const ttftRow = await todayRow(page, 'chart-ttft', 'Show as table')
    expect((await ttftRow.locator('td').first().innerText()).startsWith('at most ')).toBe(true)
    // A fresh install's revenue: no data yet, said over its zero line.
    await page.getByTestId('chart-revenue').getByText('No data yet').waitFor()
    await page.getByTestId('health-models').getByText('Answering').waitFor()
    await shootFromTop(page, 'console-health-tables-en.png', { fullPage: true })

    // Retry: a note is required; then the mail goes out.
    const failedRow = page.getByTestId('failed-jobs').getByRole('row').filter({ hasText: 'account-mail' })
    expect(await failedRow.innerText()).toContain('550')
    await failedRow.getByRole('button', { name: /^Retry job .+ \(account-mail\)$/ }).click()
    await failedRow.getByRole('button', { name: 'Queue it again' }).click()
    await failedRow.getByRole('alert').filter({ hasText: 'Write why you retry this job.' }).waitFor()
    await failedRow.getByLabel('Note (why; kept in the audit log)').fill('Mail server fixed')
    smtpBehaviour.rejectRecipients = false
    await failedRow.getByRole('button', { name: 'Queue it again' }).click()
    await page
      .getByTestId('job-retried')
      .getByText(/^Job .+ is queued again\.$/)
      .waitFor()
    const mail = await smtp.waitForMail(newcomer.email, 30_000)
    expect(mail.text).toContain('/verify?token=')
    await page.getByText('No job has failed.').waitFor()
    const audit = await api<{ items: { action: string; note: string }[] }>('/admin/audit?action=job.retry')
    expect(audit.body.data.items.map((r) => [r.action, r.note])).toEqual([['job.retry', 'Mail server fixed']])
    await shootFromTop(page, 'console-health-retried-en.png')
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('shows the health page in Arabic, right to left, the time axis too', async () => {
    const { page, errors } = await adminPage('ar')
    await page.goto(`${server.url}/ar/console/health`)
    await page.waitForFunction(HYDRATED)
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await page.getByRole('heading', { level: 1, name: 'صحة النظام' }).waitFor()
    await page.getByRole('img', { name: /^أخطاء النموذج حسب النوع، من / }).waitFor()
    // Today is drawn at the left end: the sign-ups line's last point has the smallest x.
    const path = (await page.getByTestId('chart-signups').locator('svg[role=img] path').first().getAttribute('d')) ?? ''
    const xs = [...path.matchAll(/[ML]([\d.]+) /g)].map((m) => Number(m[1]))
    expect(xs[0]).toBe(300)
    expect(xs[xs.length - 1]).toBe(0)
    const row = await todayRow(page, 'chart-errors', 'اعرض كجدول')
    const one = await page.evaluate(() => new Intl.NumberFormat('ar').format(1))
    expect(await row.locator('td').nth(1).innerText()).toBe(one)
    await page.getByText('لم تفشل أي مهمة.').waitFor()
    await shootFromTop(page, 'console-health-ar.png', { fullPage: true })
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('shows the enrollment QR code beside the typed key; English and Arabic', async () => {
    for (const lang of ['en', 'ar'] as const) {
      const { context, page, errors } = await personPage(browser, server.url, { lang })
      await signInByFields(page, server.url, keeper, lang)
      await page.goto(`${server.url}${lang === 'en' ? '' : '/ar'}/console`)
      await startEnrollment(page, lang === 'en' ? 'Start' : 'ابدأ')
      const qr = page.getByRole('img', {
        name: lang === 'en' ? 'QR code of the authenticator setup address' : 'رمز QR لعنوان إعداد تطبيق المصادقة',
      })
      await qr.waitFor()
      const uri = (await page.getByTestId('otpauth-link').getAttribute('href')) ?? ''
      expect(uri).toMatch(/^otpauth:\/\/totp\//)
      // The code's size is its version's (4v + 17 modules) plus the quiet zone, and it is drawn.
      const version = Number(await qr.getAttribute('data-qr-version'))
      expect(await qr.getAttribute('viewBox')).toBe(`0 0 ${4 * version + 17 + 8} ${4 * version + 17 + 8}`)
      const box = await qr.boundingBox()
      expect(box?.width).toBeGreaterThan(150)
      await page.getByTestId('totp-secret').waitFor()
      await shootFromTop(page, `console-enroll-qr-${lang}.png`)
      expect(await seriousA11yViolations(page)).toEqual([])
      expect(errors).toEqual([])
      await context.close()
    }
  })
})
