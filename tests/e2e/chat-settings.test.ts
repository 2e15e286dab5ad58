import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OpenAiApiDouble } from '#tests/doubles/openai-api.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startChat,
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'

// Issue 18 item 9, per chat (ADR 033): the chat's settings dialog sets temperature and reply
// length within the bounds of the model (here the single LLM_* model: the defaults), and the
// next reply is asked with them.

const tuner = { username: 'tuner', email: 'tuner@example.test', password: 'a lantern over the harbour' }

describe.skipIf(!chromiumPath)('chat settings in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble('The keeper trims the wick.', { users: [tuner] }))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  const lastAsked = () => {
    const body = model.requests.filter((r) => r.stream).at(-1)
    return { temperature: body?.temperature, max_tokens: body?.max_tokens }
  }

  async function send(page: Page, text: string) {
    const before = await page.getByTestId('message-assistant').count()
    await page.getByLabel('Your message').fill(text)
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByTestId('message-user').filter({ hasText: text }).waitFor()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="message-assistant"]').length > n, before)
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
  }

  it('sets temperature and reply length within the bounds, uses them for the next reply, resets them; in English and Arabic', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    const { context, page, errors } = await personPage(browser, server.url)

    await logIn(page, server.url, tuner)
    await startChat(page, server.url, role?.roleId ?? '')
    const chatPath = new URL(page.url()).pathname

    // The dialog shows the model's bounds (Intl-formatted) and the model's default in use.
    await page.getByRole('button', { name: 'Settings' }).click()
    const dialog = page.getByRole('dialog', { name: 'Chat settings' })
    await dialog.waitFor()
    const temperature = dialog.getByTestId('setting-temperature')
    const replyLength = dialog.getByTestId('setting-replyTokens')
    await temperature.getByText('From 0 to 1.5').waitFor()
    await replyLength.getByText(/From 64 to 1,024/).waitFor()
    await temperature.getByText(/using the model's default/).waitFor()

    // Out of bounds: said at once, and Save is not offered.
    await replyLength.getByRole('spinbutton').fill('5000')
    expect(await replyLength.getByRole('spinbutton').getAttribute('aria-invalid')).toBe('true')
    expect(await dialog.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true)

    await temperature.getByRole('spinbutton').fill('1.2')
    await replyLength.getByRole('spinbutton').fill('200')
    expect(await temperature.getByRole('slider').inputValue()).toBe('1.2')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-settings.png') })
    await dialog.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    await dialog.waitFor({ state: 'detached' })

    await send(page, 'Is the lamp lit?')
    expect(lastAsked()).toEqual({ temperature: 1.2, max_tokens: 200 })

    // Kept with the chat: after a reload the dialog shows them; Reset goes back to the model's defaults.
    await page.reload()
    await page.waitForFunction(HYDRATED)
    await page.getByRole('button', { name: 'Settings' }).click()
    await dialog.waitFor()
    expect(await temperature.getByRole('spinbutton').inputValue()).toBe('1.2')
    expect(await replyLength.getByRole('spinbutton').inputValue()).toBe('200')
    await dialog.getByRole('button', { name: "Reset to the model's defaults" }).click()
    expect(await temperature.getByRole('spinbutton').inputValue()).toBe('')
    await dialog.getByRole('button', { name: 'Save settings' }).click()
    await dialog.waitFor({ state: 'detached' })
    await send(page, 'And now?')
    const asked = lastAsked()
    // No temperature of the operator's: none is sent (the server's default); the reply length is the default.
    expect(asked.temperature).toBeUndefined()
    expect(asked.max_tokens).toBeGreaterThan(200)
    expect(errors).toEqual([])

    // Arabic: the same dialog, translated, right to left, numbers through Intl.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    const sessionId = /\/chat\/([^/]+)$/.exec(chatPath)?.[1]
    await page.goto(`${server.url}/ar/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByTestId('open-chat-settings').click()
    const arDialog = page.getByRole('dialog', { name: 'إعدادات المحادثة' })
    await arDialog.waitFor()
    await arDialog.getByTestId('setting-temperature').getByRole('spinbutton').fill('0.4')
    const arRange = new Intl.NumberFormat('ar').format(1.5)
    await arDialog.getByText(`من ${new Intl.NumberFormat('ar').format(0)} إلى ${arRange}`).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'chat-settings-ar.png') })
    expect(errors).toEqual([])
    await context.close()
  })
})
