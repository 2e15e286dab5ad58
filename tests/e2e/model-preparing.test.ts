import path from 'node:path'
import type { Browser, Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatProvider } from '#contracts/chat.ts'
import arChat from '#locales/ar/chat.json' with { type: 'json' }
import enChat from '#locales/en/chat.json' with { type: 'json' }
import type { OpenAiApiDouble } from '#tests/doubles/openai-api.ts'
import {
  chromiumPath,
  HYDRATED,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'

// Issue 19 on the chat page (ADR 037): while the embedded model is downloaded the chat says "The
// model is being prepared: 42 %" with a progress bar instead of an error, follows the progress, keeps
// a message sent meanwhile (its reply fails with MODEL_PREPARING: no error dialog, Retry on the
// stranded message), and after a failure says what went wrong and how to fix it. The server's
// `chatProvider` comes from a stand-in for GET /api/models (the built server runs no embedded model
// here); the reply's MODEL_PREPARING comes from the server itself, its model answering 503
// model_preparing as the embedded provider does.
const chatter = { username: 'preparer', email: 'preparer@example.test', password: 'a lantern over the harbour' }
const LOCALES = { en: { chat: enChat, prefix: '' }, ar: { chat: arChat, prefix: '/ar' } } as const

describe.skipIf(!chromiumPath)('the model being prepared, in a browser (issue 19)', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let tokens: { token: string; refreshToken: string }
  let roleId = ''

  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble(
      { reply: 'The lamp is lit at last.', tokenDelayMs: 10 },
      { users: [chatter] },
    ))
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: chatter.email, password: chatter.password }),
    })
    tokens = (await login.json()).data
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    roleId = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)?.roleId ?? ''
    expect(roleId).not.toBe('')
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  /** A new chat opened signed in, GET /api/models answering with `provider()` as its chatProvider. */
  async function openChat(locale: keyof typeof LOCALES, provider: () => ChatProvider) {
    const created = await fetch(`${server.url}/api/createSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.token}` },
      body: JSON.stringify({ roleId }),
    })
    const sessionId = (await created.json()).data.id as string
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1100, height: 800 } })
    await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
    await context.addInitScript((pair) => {
      localStorage.setItem('token', pair.token)
      localStorage.setItem('refreshToken', pair.refreshToken)
    }, tokens)
    let asked = 0
    await context.route('**/api/models', async (route: Route) => {
      asked++
      const response = await route.fetch()
      const body = await response.json()
      body.data.chatProvider = provider()
      await route.fulfill({ response, json: body })
    })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${server.url}${LOCALES[locale].prefix}/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('message-assistant').first().waitFor()
    return { page, errors, asked: () => asked, close: () => context.close() }
  }

  async function send(page: Page, locale: keyof typeof LOCALES, text: string) {
    const { chat } = LOCALES[locale]
    await page.getByLabel(chat.messageLabel).fill(text)
    await page.getByRole('button', { name: chat.send }).click()
  }

  for (const locale of ['en', 'ar'] as const) {
    const { chat } = LOCALES[locale]
    const percentText = (p: number) =>
      new Intl.NumberFormat(locale === 'ar' ? 'ar' : 'en', { style: 'percent' }).format(p / 100)

    it(`${locale}: "The model is being prepared: 42 %", following the download; a message sent meanwhile is kept`, async () => {
      const downloading = (percent: number): ChatProvider => ({
        kind: 'embedded',
        state: 'downloading',
        percent,
        failure: null,
      })
      let provider = downloading(42)
      const { page, errors, asked, close } = await openChat(locale, () => provider)
      try {
        const notice = page.getByTestId('model-preparing-notice')
        await notice.waitFor()
        expect(await notice.getByText(chat.preparing.progress.replace('{{percent}}', percentText(42))).count()).toBe(1)
        expect(await notice.locator('progress').getAttribute('value')).toBe('42')
        expect(await notice.getAttribute('role')).toBe('status')
        expect(await page.getByTestId('no-model-notice').count()).toBe(0)
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-model-preparing-${locale}.png`) })

        // The page asks again while it runs, and the bar follows.
        const before = asked()
        provider = downloading(57)
        await notice.getByText(chat.preparing.progress.replace('{{percent}}', percentText(57))).waitFor()
        expect(asked()).toBeGreaterThan(before)

        // A message sent meanwhile: stored, its reply fails with MODEL_PREPARING, and no error dialog.
        model.failWith(503, { error: { type: 'model_preparing', message: 'The model is being prepared', percent: 57 } })
        await send(page, locale, 'Is the lamp lit?')
        await page.getByTestId('stranded').waitFor()
        expect(await page.getByTestId('message-user').filter({ hasText: 'Is the lamp lit?' }).count()).toBe(1)
        expect(await page.getByRole('dialog').count()).toBe(0)
        await notice.waitFor()

        // Ready: the notice goes, and the stranded message's Retry gets the reply.
        provider = { kind: 'embedded', state: 'ready', percent: null, failure: null }
        await notice.waitFor({ state: 'detached' })
        await page.getByTestId('stranded').getByRole('button', { name: chat.retry }).click()
        await page.getByTestId('message-assistant').last().getByText('The lamp is lit at last.').waitFor()
        expect(errors).toEqual([])
      } finally {
        await close()
      }
    })

    it(`${locale}: after a failure, what went wrong and how to fix it; the composer still works`, async () => {
      const { page, errors, close } = await openChat(locale, () => ({
        kind: 'embedded',
        state: 'failed',
        percent: null,
        failure: 'offline',
      }))
      try {
        const notice = page.getByTestId('model-failed-notice')
        await notice.waitFor()
        const text = await notice.innerText()
        expect(text).toContain(chat.preparing.failed)
        expect(text).toContain(chat.preparing.reason.offline)
        expect(text).toContain(chat.preparing.fix)
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-model-failed-${locale}.png`) })
        expect(await page.getByLabel(chat.messageLabel).isEnabled()).toBe(true)
        expect(errors).toEqual([])
      } finally {
        await close()
      }
    })
  }
})
