import path from 'node:path'
import type { Browser, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startChat,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

const chatter = { username: 'chatter', email: 'chatter@example.test', password: 'a lantern over the harbour' }

describe.skipIf(!chromiumPath)('chat in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let replies = 0
  beforeAll(async () => {
    // Each reply is numbered, so alternatives (swipes) can be told apart; words arrive one by one.
    model = await startOpenAiApi({
      reply: () => {
        replies += 1
        // The fourth carries character references: the browser build decodes them with the
        // browser's own parser (ADR 071), strictly, as the server's markdown does.
        const references = replies === 4 ? ' &copy; &notit; &Aacute;&semi; &foo; &#x41;' : ''
        return `*She looks up from the map.* Reply number ${replies}, traveller.${references}`
      },
      tokenDelayMs: 40,
    })
    ;({ server, browser } = await startServerAndBrowser(
      { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'e2e-model' },
      { users: [chatter] },
    ))
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
    await model?.close()
  })

  it('starts a chat from a character page, streams a reply, swipes, lists it in My Chats and recovers from a provider failure', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; name: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    expect(role).toBeDefined()
    const { context, page, errors } = await personPage(browser, server.url)

    await logIn(page, server.url, chatter)
    await startChat(page, server.url, role?.roleId ?? '')
    await page.getByRole('heading', { level: 1, name: role?.name }).waitFor()

    await page.getByLabel('Your message').fill('Where does the road lead?')
    await page.getByRole('button', { name: 'Send' }).click()
    // Typing shows while the words stream in; the finished reply is stored and rendered as markdown.
    await page.getByTestId('chat-status').filter({ hasText: 'Typing' }).waitFor()
    await page.getByTestId('message-user').filter({ hasText: 'Where does the road lead?' }).waitFor()
    const firstReply = page.getByTestId('message-assistant').last()
    await firstReply.getByText('Reply number 1, traveller.').waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
    expect(await firstReply.locator('em').first().innerText()).toBe('She looks up from the map.')
    // Written to, the chat is history: at the top of My Chats (ADR 048).
    await page
      .getByTestId('my-chats')
      .getByText(role?.name ?? '')
      .first()
      .waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat.png') })

    // Swipe: a new alternative is written; the first one is kept and can be shown again.
    await page.getByRole('button', { name: 'Next alternative' }).click()
    await page.getByTestId('message-assistant').last().getByText('Reply number 2, traveller.').waitFor()
    await page.getByTestId('swipe-position').filter({ hasText: '2 / 2' }).waitFor()
    await page.getByRole('button', { name: 'Previous alternative' }).click()
    await page.getByTestId('message-assistant').last().getByText('Reply number 1, traveller.').waitFor()
    await page.getByTestId('swipe-position').filter({ hasText: '1 / 2' }).waitFor()

    // The provider fails: the message stays, the dialog explains, Retry answers it.
    model.fail(500)
    await page.getByLabel('Your message').fill('And after that?')
    await page.getByRole('button', { name: 'Send' }).click()
    const dialog = page.getByRole('dialog', { name: 'Connection Error' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Show Details' }).click()
    await dialog.getByText(/MODEL_ERROR/).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'chat-error.png') })
    await dialog.getByRole('button', { name: 'Retry' }).click()
    await page.getByTestId('message-assistant').last().getByText('Reply number 3, traveller.').waitFor()
    expect(await page.getByTestId('message-user').filter({ hasText: 'And after that?' }).count()).toBe(1)
    await page
      .getByTestId('my-chats')
      .getByText(/Reply number 3/)
      .waitFor()

    // Everything survives a reload: the server is the record. The chat's opening calls leave from the
    // page's HTML before any of its scripts (ADR 068), and the app uses their answers: once each.
    const requested: string[] = []
    const record = (request: Request) => void requested.push(new URL(request.url()).pathname)
    page.on('request', record)
    await page.reload()
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('message-assistant').last().getByText('Reply number 3, traveller.').waitFor()
    expect(await page.getByTestId('message-user').count()).toBe(2)
    page.off('request', record)
    const firstScript = requested.findIndex((p) => p.endsWith('.js'))
    for (const opening of ['/api/session', '/api/messages']) {
      expect(requested.filter((p) => p === opening)).toHaveLength(1)
      expect(requested.indexOf(opening)).toBeLessThan(firstScript)
    }

    // Enter before the chat has loaded sends nothing, as the disabled Send button says; once loaded, it sends.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/api/session', async (route) => {
      await held
      await route.continue()
    })
    await page.reload()
    await page.waitForFunction(HYDRATED)
    const input = page.getByLabel('Your message')
    await input.fill('Too soon?')
    await input.press('Enter')
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
    expect(await input.inputValue()).toBe('Too soon?')
    release()
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true)
    await input.press('Enter')
    await page.getByTestId('message-user').filter({ hasText: 'Too soon?' }).waitFor()
    const fourth = page.getByTestId('message-assistant').last()
    await fourth.getByText('Reply number 4, traveller.').waitFor()
    expect(await fourth.locator('.chat-markdown').innerText()).toBe(
      'She looks up from the map. Reply number 4, traveller. © &notit; Á; &foo; A',
    )
    expect(await page.getByTestId('message-user').count()).toBe(3)
    expect(errors).toEqual([])
    await context.close()
  })
})
