import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import arChat from '#locales/ar/chat.json' with { type: 'json' }
import arCommon from '#locales/ar/common.json' with { type: 'json' }
import enChat from '#locales/en/chat.json' with { type: 'json' }
import enCommon from '#locales/en/common.json' with { type: 'json' }
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

// Issue 18 on the chat page (ADR 032): the model's thinking, cut replies and Continue, Retry that
// fits the failure, a stranded message's Retry, and the notice when no model server answers. Each
// runs in English and in Arabic (right to left), with the words of each locale's files.
const chatter = { username: 'replier', email: 'replier@example.test', password: 'a lantern over the harbour' }
const LOCALES = {
  en: { chat: enChat, common: enCommon, prefix: '' },
  ar: { chat: arChat, common: arCommon, prefix: '/ar' },
} as const

describe.skipIf(!chromiumPath)('chat replies in a browser (issue 18)', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let replies = 0
  let tokens: { token: string; refreshToken: string }
  let roleId = ''
  const nextReply = () => {
    replies += 1
    return `The road runs north along the cliffs, reply ${replies}.`
  }
  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble(
      { reply: nextReply, tokenDelayMs: 30 },
      { env: { LLM_HEALTH_INTERVAL_MS: '300' }, users: [chatter] },
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

  /** A new chat with the character, opened signed in, in `locale`. */
  async function openChat(
    locale: keyof typeof LOCALES,
  ): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
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
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${server.url}${LOCALES[locale].prefix}/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('message-assistant').first().waitFor()
    return { page, errors, close: () => context.close() }
  }

  async function send(page: Page, locale: keyof typeof LOCALES, text: string) {
    const { chat } = LOCALES[locale]
    await page.getByLabel(chat.messageLabel).fill(text)
    await page.getByRole('button', { name: chat.send }).click()
  }

  for (const locale of ['en', 'ar'] as const) {
    const { chat, common } = LOCALES[locale]

    it(`${locale}: shows the model's thinking collapsed while it thinks, then the reply; never stored`, async () => {
      const { page, errors, close } = await openChat(locale)
      model.reasoning =
        'The traveller asks about the road. The map in the drawer shows the cliff path; I should mention the tide.'
      model.tokenDelayMs = 120
      try {
        await send(page, locale, 'Where does the road lead?')
        const streamingThought = page.getByTestId('message-streaming').getByTestId('thinking')
        await streamingThought.getByText(chat.thinking.active).waitFor()
        // Collapsed: the summary shows, the thinking itself does not until asked for.
        expect(await streamingThought.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
        await page.waitForTimeout(400)
        await page.screenshot({ path: path.join(screenshotDir, `chat-thinking-${locale}.png`) })
        const reply = page.getByTestId('message-assistant').last()
        await reply.getByText(/The road runs north along the cliffs/).waitFor()
        await page.getByRole('button', { name: chat.send }).waitFor()
        // Kept beside the reply for this page view, collapsed, with its words on demand.
        const kept = reply.getByTestId('thinking')
        await kept.getByText(chat.thinking.done).waitFor()
        expect(await kept.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
        await kept.getByText(chat.thinking.done).click()
        await kept.getByText(/the cliff path/).waitFor()
        expect(await kept.locator('[dir="auto"]').count()).toBe(1)
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-thinking-open-${locale}.png`) })
        // The reply's text never carries the thinking, and after a reload the thinking is gone.
        expect(await reply.locator('.chat-markdown').innerText()).not.toContain('cliff path')
        await page.reload()
        await page.waitForFunction(HYDRATED)
        await page
          .getByTestId('message-assistant')
          .last()
          .getByText(/The road runs north/)
          .waitFor()
        expect(await page.getByTestId('thinking').count()).toBe(0)
        expect(errors).toEqual([])
      } finally {
        model.reasoning = ''
        model.tokenDelayMs = 30
        await close()
      }
    })

    it(`${locale}: a reply cut at its length shows so, and Continue extends it in place; Stop works during Continue`, async () => {
      const { page, errors, close } = await openChat(locale)
      try {
        model.finishReason = 'length'
        await send(page, locale, 'Tell me everything about the road.')
        const reply = page.getByTestId('message-assistant').last()
        await reply.getByTestId('reply-cut').getByText(chat.cut).waitFor()
        const repliesBefore = await page.getByTestId('message-assistant').count()
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-cut-${locale}.png`) })

        model.finishReason = 'stop'
        model.reply = () => ' Past the lighthouse it turns inland, towards the old mill.'
        await reply.getByRole('button', { name: chat.continue }).click()
        await reply.getByText(/towards the old mill\./).waitFor()
        await page.getByRole('button', { name: chat.send }).waitFor()
        // The same message, extended: no new reply, the first part kept, the cut label gone.
        expect(await page.getByTestId('message-assistant').count()).toBe(repliesBefore)
        const text = await reply.locator('.chat-markdown').innerText()
        expect(text).toMatch(/The road runs north along the cliffs, reply \d+\.\s*Past the lighthouse/)
        expect(await reply.getByTestId('reply-cut').count()).toBe(0)
        // The server stored the extension.
        await page.reload()
        await page.waitForFunction(HYDRATED)
        await page
          .getByTestId('message-assistant')
          .last()
          .getByText(/towards the old mill\./)
          .waitFor()

        // Cut again, and this time Stop while it continues: the reply keeps what it had.
        model.reply = nextReply
        model.finishReason = 'length'
        await send(page, locale, 'And beyond the mill?')
        const second = page.getByTestId('message-assistant').last()
        await second.getByTestId('reply-cut').waitFor()
        const before = await second.locator('.chat-markdown').innerText()
        model.finishReason = 'stop'
        model.reply = () =>
          ' The mill wheel turns slowly, and the miller waves at every traveller who passes by the bridge.'
        model.tokenDelayMs = 300
        await second.getByRole('button', { name: chat.continue }).click()
        await page.getByRole('button', { name: chat.stop }).click()
        await page.getByRole('button', { name: chat.send }).waitFor()
        const after = await page.getByTestId('message-assistant').last().locator('.chat-markdown').innerText()
        expect(after.startsWith(before.trim())).toBe(true)
        expect(after).not.toContain('every traveller who passes by the bridge.')
        expect(errors).toEqual([])
      } finally {
        model.reply = nextReply
        model.finishReason = 'stop'
        model.tokenDelayMs = 30
        await close()
      }
    })

    it(`${locale}: a failure a retry cannot help offers no Retry; the stranded message keeps its own Retry after a reload`, async () => {
      const { page, errors, close } = await openChat(locale)
      try {
        model.fail(404, 'The model `e2e-model` does not exist.')
        await send(page, locale, 'Is anyone there?')
        const dialog = page.getByRole('dialog', { name: chat.connection.title })
        await dialog.getByText(common.apiErrors.MODEL_NOT_FOUND).waitFor()
        expect(await dialog.getByRole('button', { name: chat.retry }).count()).toBe(0)
        await dialog.getByRole('button', { name: chat.connection.close }).click()

        const stranded = page.getByTestId('message-user').last().getByTestId('stranded')
        await stranded.getByText(chat.stranded).waitFor()
        await page.reload()
        await page.waitForFunction(HYDRATED)
        await stranded.getByRole('button', { name: chat.retry }).waitFor()
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-stranded-${locale}.png`) })
        await stranded.getByRole('button', { name: chat.retry }).click()
        await page
          .getByTestId('message-assistant')
          .last()
          .getByText(/The road runs north/)
          .waitFor()
        await page.getByRole('button', { name: chat.send }).waitFor()
        expect(await page.getByTestId('stranded').count()).toBe(0)
        expect(await page.getByTestId('message-user').filter({ hasText: 'Is anyone there?' }).count()).toBe(1)

        // A failure a retry can help offers Retry; closing it instead, a new message still gets its reply.
        model.fail(503)
        await send(page, locale, 'Hello again?')
        await dialog.getByText(common.apiErrors.MODEL_OVERLOADED).waitFor()
        await dialog.getByRole('button', { name: chat.retry }).waitFor()
        await dialog.getByRole('button', { name: chat.connection.close }).click()
        await page.getByTestId('stranded').waitFor()
        await send(page, locale, 'Anyone at all?')
        await page
          .getByTestId('message-assistant')
          .last()
          .getByText(/The road runs north/)
          .waitFor()
        await page.getByRole('button', { name: chat.send }).waitFor()
        const users = await page.getByTestId('message-user').allInnerTexts()
        expect(users.slice(-2).map((u) => u.includes('Hello again?') || u.includes('Anyone at all?'))).toEqual([
          true,
          true,
        ])
        expect(await page.getByTestId('stranded').count()).toBe(0)
        expect(errors).toEqual([])
      } finally {
        await close()
      }
    })

    it(`${locale}: says when no model server can be reached, and the composer still sends`, async () => {
      model.modelListDown = true
      // The server's health check sees it first (every 300 ms here): the page's own request for
      // /api/models is kept a minute by the browser (ADR 031), so it must already say so.
      await expect
        .poll(async () => (await (await fetch(`${server.url}/readyz`)).json()).models?.['e2e-model'], {
          timeout: 10_000,
        })
        .toBe('unreachable')
      const { page, errors, close } = await openChat(locale)
      try {
        // The page asks /api/models after it hydrates, so the notice comes a moment later: wait for
        // it (isVisible alone does not wait, and lost that race on a loaded CI machine). Should the
        // answer have been the earlier one, a reload asks again.
        const notice = page.getByTestId('no-model-notice')
        await expect
          .poll(
            () =>
              notice.waitFor({ timeout: 20_000 }).then(
                () => true,
                async () => {
                  await page.reload({ waitUntil: 'domcontentloaded', timeout: 20_000 })
                  return false
                },
              ),
            { timeout: 90_000 },
          )
          .toBe(true)
        expect(await page.getByTestId('no-model-notice').innerText()).toBe(chat.noModelReachable)
        expect(await seriousA11yViolations(page)).toEqual([])
        await page.screenshot({ path: path.join(screenshotDir, `chat-no-model-${locale}.png`) })
        // The message is stored and, the model answering after all, replied to.
        await send(page, locale, 'Still there?')
        await page.getByTestId('message-user').filter({ hasText: 'Still there?' }).waitFor()
        await page
          .getByTestId('message-assistant')
          .last()
          .getByText(/The road runs north/)
          .waitFor()
        expect(errors).toEqual([])
      } finally {
        model.modelListDown = false
        await close()
      }
    })
  }
})
