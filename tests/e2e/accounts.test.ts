import path from 'node:path'
import { OAuth2Server } from 'oauth2-mock-server'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linksIn, startSmtpServer } from '#tests/doubles/smtp.ts'
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

describe.skipIf(!chromiumPath)('accounts in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>
  let google: OAuth2Server
  beforeAll(async () => {
    smtp = await startSmtpServer()
    // A real OpenID Connect issuer on loopback stands in for Google.
    google = new OAuth2Server()
    await google.issuer.keys.generate('RS256')
    await google.start(0, '127.0.0.1')
    server = await startServer({
      SMTP_URL: smtp.url,
      GOOGLE_CLIENT_ID: 'taleweave-e2e',
      GOOGLE_CLIENT_SECRET: 'e2e-secret',
      GOOGLE_ISSUER: google.issuer.url ?? '',
    })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await smtp?.close()
    await google?.stop()
  })

  it('registers (solving the human check), verifies from the mail, logs in with remember-me, stays in, logs out', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 900 } })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))

    const email = `e2e-${Date.now()}@example.test`
    const password = 'a lantern over the harbour'
    await page.goto(`${server.url}/register`)
    await page.waitForFunction(HYDRATED)
    // Submitting empty says so first.
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Please fill all fields.').waitFor()
    await page.getByLabel('Username').fill(`e2e_${Date.now().toString(36)}`)
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Please complete verification.').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])

    // The ALTCHA widget solves its proof-of-work in the browser.
    await page.getByText('I am not a robot').click()
    await page.getByText('Verified').waitFor({ timeout: 30_000 })
    await page.screenshot({ path: path.join(screenshotDir, 'register.png') })
    await page.getByRole('button', { name: 'Create account' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Registration successful, please check your email to verify your account.' })
      .first()
      .waitFor()
    await page.getByRole('button', { name: /Resend in \d+ s/ }).waitFor()

    const mail = await smtp.waitForMail(email)
    const link = linksIn(mail.text).find((l) => l.includes('/verify?token='))
    expect(link).toBeTruthy()
    await page.goto(link ?? '')
    await page.getByText('Your e-mail address is verified. You can log in now.').waitFor()

    await page.goto(`${server.url}/login?redirect_url=${encodeURIComponent('/characters?sort=newest')}`)
    await page.waitForFunction(HYDRATED)
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill('not my password at all')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByText('The e-mail or password is wrong.').waitFor()
    await page.getByLabel('Password').fill(password)
    await page.getByLabel('Remember me').check()
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${server.url}/characters?sort=newest`)
    await page.getByRole('button', { name: 'Logout' }).waitFor()

    await page.reload()
    await page.getByRole('button', { name: 'Logout' }).waitFor()
    await page.getByText('No chat history').waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'logged-in.png') })

    const refreshToken = await page.evaluate(() => localStorage.getItem('refreshToken'))
    await page.getByRole('button', { name: 'Logout' }).click()
    await page.getByRole('link', { name: 'Login' }).waitFor()
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('refreshToken')])).toEqual([
      null,
      null,
    ])
    // The login is over on the server too.
    await expect
      .poll(
        async () =>
          (
            await fetch(`${server.url}/api/refresh`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ refreshToken }),
            })
          ).status,
      )
      .toBe(401)
    expect(errors).toEqual([])
    await context.close()
  })

  it('never follows a redirect_url to another site after login', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    // A verified account, made through the API the way the form does it.
    const email = `redirect-${Date.now()}@example.test`
    const password = 'moonlight over quiet water'
    const challenge = await (await fetch(`${server.url}/api/public/altcha/challenge`)).json()
    const { solveChallenge } = await import('altcha-lib')
    const { deriveKey } = await import('altcha-lib/algorithms/sha')
    const solution = await solveChallenge({ challenge, deriveKey })
    const turnstileToken = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
    await fetch(`${server.url}/api/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `redir_${Date.now().toString(36)}`, email, password, turnstileToken }),
    })
    const token = new URL(
      linksIn((await smtp.waitForMail(email)).text).find((l) => l.includes('/verify?')) ?? '',
    ).searchParams.get('token')
    await fetch(`${server.url}/api/verify?token=${token}`, { method: 'POST' })

    await page.goto(`${server.url}/login?redirect_url=${encodeURIComponent('//evil.example/steal')}`)
    await page.waitForFunction(HYDRATED)
    await page.getByLabel('E-mail').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${server.url}/`)
    await context.close()
  })

  /** An account made through the API (the human check solved here) and verified from its mail. */
  async function registerVerified(name: string, email: string, password: string) {
    const challenge = await (await fetch(`${server.url}/api/public/altcha/challenge`)).json()
    const { solveChallenge } = await import('altcha-lib')
    const { deriveKey } = await import('altcha-lib/algorithms/sha')
    const solution = await solveChallenge({ challenge, deriveKey })
    await fetch(`${server.url}/api/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: `${name}_${Date.now().toString(36)}`,
        email,
        password,
        turnstileToken: Buffer.from(JSON.stringify({ challenge, solution })).toString('base64'),
      }),
    })
    const token = new URL(
      linksIn((await smtp.waitForMail(email)).text).find((l) => l.includes('/verify?')) ?? '',
    ).searchParams.get('token')
    await fetch(`${server.url}/api/verify?token=${token}`, { method: 'POST' })
  }

  it('after failed logins asks for the human check, and the right password then gets in', async () => {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    const email = `forgetful-${Date.now()}@example.test`
    const password = 'tea in the lighthouse kitchen'
    await registerVerified('forgetful', email, password)

    await page.goto(`${server.url}/login`)
    await page.waitForFunction(HYDRATED)
    await page.getByLabel('E-mail').fill(email)
    const attempt = async (guess: string) => {
      await page.getByLabel('Password').fill(guess)
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/login'))
      await page.getByRole('button', { name: 'Log in' }).click()
      return (await answered).status()
    }
    // Five wrong passwords (ADR 023): the form has no human check yet.
    for (let i = 0; i < 5; i++) expect(await attempt(`wrong guess number ${i}`)).toBe(401)
    expect(await page.getByTestId('human-check').count()).toBe(0)
    // The sixth try, the right password, is asked for a human check first: the form says why and shows it.
    expect(await attempt(password)).toBe(403)
    await page
      .getByText('Too many failed logins to this account. Please confirm that you are human, then log in again.')
      .waitFor()
    await page.getByText('I am not a robot').click()
    await page.getByText('Verified').waitFor({ timeout: 30_000 })
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'login-human-check.png') })
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${server.url}/`)
    await page.getByRole('button', { name: 'Logout' }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it('writes the mails in the language of the login page, then in the one picked in the selector', async () => {
    const email = `polyglot-${Date.now()}@example.test`
    const password = 'letters from every harbour'
    await registerVerified('polyglot', email, password)
    const resetLink = async () => {
      await fetch(`${server.url}/api/forgot-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      })
      return linksIn((await smtp.waitForMail(email)).text).find((l) => l.includes('reset-password?token='))
    }
    // Registered in English; logs in on the German login page.
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1280, height: 800 } })
    await context.addCookies([{ name: 'lang', value: 'de', url: server.url }])
    const page = await context.newPage()
    await page.goto(`${server.url}/de/login`)
    await page.waitForFunction(HYDRATED)
    await page.locator('input[type="email"]').fill(email)
    await page.locator('input[type="password"]').fill(password)
    await page.locator('form button[type="submit"]').click()
    await page.getByRole('button', { name: 'Abmelden' }).waitFor()
    expect(await resetLink()).toContain(`${server.url}/de/reset-password?token=`)

    // On the home page, which asks for no user info, picks 日本語 in the language selector.
    await page.goto(`${server.url}/de`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('language-switcher').click()
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/locale'))
    await page.locator('a[hreflang="ja"]').click()
    expect((await saved).status()).toBe(200)
    await page.waitForURL(`${server.url}/ja`)
    expect(await resetLink()).toContain(`${server.url}/ja/reset-password?token=`)
    await context.close()
  })

  it('signs in through the Google issuer and comes back to the page it started from', async () => {
    const email = `oidc-${Date.now()}@gmail.test`
    const addClaims = (token: { payload: Record<string, unknown> }) =>
      Object.assign(token.payload, { sub: `e2e-${Date.now()}`, email, email_verified: true, name: 'Mira Okafor' })
    google.service.on('beforeTokenSigning', addClaims)
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT })
    await context.addCookies([{ name: 'lang', value: 'en', url: server.url }])
    const page = await context.newPage()
    await page.goto(`${server.url}/login?redirect_url=${encodeURIComponent('/characters?sort=rating')}`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('button', { name: 'Continue with Google' }).click()
    await page.waitForURL(`${server.url}/characters?sort=rating`)
    await page.getByRole('button', { name: 'Logout' }).waitFor()
    // The user info arrives after that first navigation: the avatar names the new account.
    await expect.poll(() => page.getByRole('img', { name: 'Mira_Okafor' }).count()).toBe(1)
    google.service.off('beforeTokenSigning', addClaims)
    await context.close()
  })
})
