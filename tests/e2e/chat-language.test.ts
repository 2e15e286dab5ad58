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
  sendWithEnter,
  seriousA11yViolations,
  startChat,
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'

// Issue 20 item 5 (ADR 038): the model is told the language of the page the user chats in, and
// the chat's settings dialog lets the user fix a language of the chat's own.

const polyglot = { username: 'polyglot', email: 'polyglot@example.test', password: 'a lantern over the harbour' }

describe.skipIf(!chromiumPath)('the language of the replies in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble('The keeper trims the wick.', { users: [polyglot] }))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  /** The system message of the model's last reply request. */
  const lastSystem = () =>
    String(
      model.requests
        .filter((r) => r.stream)
        .at(-1)
        ?.messages.find((m) => m.role === 'system')?.content ?? '',
    )

  async function send(page: Page, text: string) {
    const asked = model.requests.filter((r) => r.stream).length
    await sendWithEnter(page, text)
    await page.getByTestId('message-user').filter({ hasText: text }).waitFor()
    await expect.poll(() => model.requests.filter((r) => r.stream).length).toBeGreaterThan(asked)
    await page.getByTestId('message-assistant').filter({ hasText: 'The keeper trims the wick.' }).last().waitFor()
  }

  it('follows the site language, then the chat’s own; the select in English and Arabic', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    const { context, page, errors } = await personPage(browser, server.url)

    await logIn(page, server.url, polyglot)
    await startChat(page, server.url, role?.roleId ?? '')
    const sessionId = /\/chat\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1]

    await send(page, 'Is the lamp lit?')
    expect(lastSystem()).toContain('Write your reply in English, whatever language the text above is in.')

    // The chat's own language: Japanese, named in English and in itself.
    await page.getByRole('button', { name: 'Settings' }).click()
    const dialog = page.getByRole('dialog', { name: 'Chat settings' })
    await dialog.waitFor()
    const select = dialog.getByLabel('Reply language')
    expect(await select.inputValue()).toBe('')
    expect(await select.locator('option').first().textContent()).toBe('Same as the site (English)')
    expect(await select.locator('option').count()).toBe(22)
    await select.selectOption('ja')
    expect(await select.locator('option:checked').textContent()).toBe('Japanese · 日本語')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-language.png') })
    await dialog.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    await dialog.waitFor({ state: 'detached' })
    await send(page, 'And now?')
    expect(lastSystem()).toContain('Write your reply in Japanese (日本語)')

    // Arabic: the select translated, the languages named in Arabic; back to the site's language.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('open-chat-settings').click()
    const arDialog = page.getByRole('dialog', { name: 'إعدادات المحادثة' })
    await arDialog.waitFor()
    const arSelect = arDialog.getByLabel('لغة الردود')
    expect(await arSelect.inputValue()).toBe('ja')
    const japaneseInArabic = new Intl.DisplayNames('ar', { type: 'language' }).of('ja')
    expect(await arSelect.locator('option:checked').textContent()).toBe(`${japaneseInArabic} · 日本語`)
    await page.screenshot({ path: path.join(screenshotDir, 'chat-language-ar.png') })
    await arSelect.selectOption('')
    await arDialog.getByRole('button', { name: 'حفظ الإعدادات' }).click()
    await arDialog.waitFor({ state: 'detached' })
    await send(page, 'مرحبا')
    expect(lastSystem()).toContain('Write your reply in Arabic (العربية)')
    expect(errors).toEqual([])
    await context.close()
  })
})
