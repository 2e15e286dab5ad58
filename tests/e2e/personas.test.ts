import path from 'node:path'
import type { Browser } from 'playwright-core'
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

// Issue 22 item 2 (ADR 049): a persona made in the browser becomes the default, a new chat's
// greeting calls the user by its name, and the picker in the chat header switches persona for
// the next reply (the model double sees it). English and Arabic, screenshots looked at.

const player = { username: 'masked_player', email: 'masked@example.test', password: 'a lantern over the harbour' }

describe.skipIf(!chromiumPath)('personas in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble('The wind turns.', { users: [player] }))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  const lastSystem = () => String(model.requests.filter((r) => r.stream).at(-1)?.messages[0]?.content ?? '')

  it('creates a persona, makes it the default, greets with its name, switches persona in the chat; in English and Arabic', async () => {
    // A character whose greeting names the user ({{user}}).
    const list = await (await fetch(`${server.url}/api/roles?q=Seraphine`)).json()
    const role = (list.data.items as { roleId: string; name: string }[]).find((r) => r.name === 'Seraphine Ashvale')
    expect(role).toBeDefined()
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, player)

    await page.goto(`${server.url}/personas`)
    await page.waitForFunction(HYDRATED)
    await page.getByText('No personas yet.', { exact: false }).waitFor()

    // Refused fields are said on the field, in words.
    await page.getByTestId('new-persona').click()
    const form = page.getByTestId('persona-form')
    await form.getByLabel('Name').fill('   ')
    await form.getByTestId('persona-save').click()
    await page.getByTestId('persona-name-error').getByText('Give the persona a name.').waitFor()
    expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true')

    await form.getByLabel('Name').fill('Wren Halloway')
    await form.getByLabel('Description').fill('Wren is a cartographer with ink-stained hands and a borrowed compass.')
    await form.getByTestId('persona-save').click()
    await page.getByText('Wren Halloway was added.').waitFor()
    await page.getByTestId('new-persona').click()
    await page.getByTestId('persona-form').getByLabel('Name').fill('Corin')
    await page.getByTestId('persona-form').getByLabel('Description').fill('Corin is a runaway bell-ringer.')
    await page.getByTestId('persona-form').getByTestId('persona-save').click()
    await page.getByText('Corin was added.').waitFor()

    // Wren becomes the default.
    const wren = page.getByTestId('persona-row').filter({ hasText: 'Wren Halloway' })
    await wren.getByTestId('persona-default').click()
    await page.getByText('New chats will use Wren Halloway.').waitFor()
    expect(await wren.getByTestId('persona-default').getAttribute('aria-pressed')).toBe('true')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'personas.png'), fullPage: true })

    // A new chat: the greeting calls the user Wren, and so does the prompt.
    await startChat(page, server.url, role?.roleId ?? '')
    await page.waitForFunction(HYDRATED)
    const greeting = page.getByTestId('message-assistant').first()
    await greeting.getByText('Wren Halloway', { exact: false }).first().waitFor()
    expect(await greeting.textContent()).not.toContain(player.username)
    const select = page.getByTestId('persona-select')
    await select.waitFor()
    expect(await select.locator('option:checked').textContent()).toBe('Wren Halloway')

    const send = async (text: string) => {
      const before = await page.getByTestId('message-assistant').count()
      await page.getByLabel('Your message').fill(text)
      await page.getByRole('button', { name: 'Send' }).click()
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="message-assistant"]').length > n,
        before,
      )
      await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
    }
    await send('I unroll the map.')
    expect(lastSystem()).toContain('## Wren Halloway\nWren is a cartographer')

    // Switched in the header: the next reply is written for Corin.
    await select.selectOption({ label: 'Corin' })
    await page.getByText('From the next reply, you are Corin.').waitFor()
    await send('I ring the bell.')
    expect(lastSystem()).toContain('## Corin\nCorin is a runaway bell-ringer.')
    expect(lastSystem()).toContain('role-play with Corin')
    await page.screenshot({ path: path.join(screenshotDir, 'personas-chat.png') })
    // Kept with the chat.
    await page.reload()
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('persona-select').waitFor()
    expect(await page.getByTestId('persona-select').locator('option:checked').textContent()).toBe('Corin')
    expect(errors).toEqual([])

    // Arabic: the page and the picker translated, right to left.
    const chatPath = new URL(page.url()).pathname
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/personas`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByRole('heading', { level: 1, name: 'الشخصيات المستعارة' }).waitFor()
    await page.getByTestId('persona-row').first().waitFor()
    await page.getByText('افتراضية', { exact: true }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'personas-ar.png'), fullPage: true })
    await page.goto(`${server.url}/ar${chatPath}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('persona-select').waitFor()
    await page.getByText('أنت', { exact: true }).first().waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'personas-chat-ar.png') })
    expect(errors).toEqual([])
    await context.close()
  })
})
