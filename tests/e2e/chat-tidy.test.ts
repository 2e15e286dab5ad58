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
  shootFromTop,
  startChat,
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'

// Issue 22 items 1 and 7 (ADR 048): continue from the character page, a new chat, search (a
// Japanese message), pin, rename, delete and undo; screenshots in English and Arabic.

const tidier = { username: 'tidier', email: 'tidier@example.test', password: 'a lantern over the harbour' }
const chatId = (page: Page) => new URL(page.url()).pathname.split('/').at(-1) ?? ''

/**
 * Waits for a navigation with a generous deadline (CI runs this beside the unit tests on two cores)
 * and, when it never comes, says where the page is and what it shows instead of a bare timeout.
 */
async function arriveAt(page: Page, url: string | ((url: URL) => boolean), what: string) {
  try {
    await page.waitForURL(url, { timeout: 90_000 })
  } catch (error) {
    const shown = await page
      .locator('[role="alert"], [role="status"]')
      .allInnerTexts()
      .catch(() => [])
    throw new Error(`${what}: still at ${page.url()} (showing ${JSON.stringify(shown)}): ${String(error)}`)
  }
}

describe.skipIf(!chromiumPath)('finding and tidying chats in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let replies = 0
  beforeAll(async () => {
    const reply = () => {
      replies += 1
      return `Reply number ${replies}.`
    }
    ;({ server, browser, model } = await startWithModelDouble(reply, { users: [tidier] }))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  async function say(page: Page, text: string) {
    const before = replies
    await page.getByLabel('Your message').fill(text)
    await page.getByRole('button', { name: 'Send' }).click()
    await page
      .getByTestId('message-assistant')
      .last()
      .getByText(`Reply number ${before + 1}.`)
      .waitFor()
  }

  it('continues the latest chat, starts a new one, finds a Japanese message, pins, renames, deletes and undoes', {
    timeout: 300_000,
  }, async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; name: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    if (!role) throw new Error('no character to chat with')
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, tidier)

    // A first chat, written in Japanese.
    await startChat(page, server.url, role.roleId)
    const first = chatId(page)
    await say(page, '東京の灯台で会いましょう。')

    // The character page offers Continue (that chat) and New chat.
    await page.goto(`${server.url}/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('continue-chat').click()
    await arriveAt(page, `**/chat/${first}`, 'Continue (the first chat)')
    await page.getByTestId('message-user').filter({ hasText: '東京の灯台' }).waitFor()

    await page.goto(`${server.url}/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('start-chat').filter({ hasText: 'New chat' }).click()
    await arriveAt(page, (url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'), 'New chat')
    const second = chatId(page)
    expect(second).not.toBe(first)
    await say(page, 'A second story begins at the old mill.')

    // Continue now opens the latest; both chats are listed with their last message.
    await page.goto(`${server.url}/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    const chats = page.getByTestId('character-chats')
    await chats.getByRole('link').nth(1).waitFor()
    expect(await chats.getByRole('link').count()).toBe(2)
    expect(await page.getByTestId('continue-chat').getAttribute('href')).toBe(`/chat/${second}`)
    await shootFromTop(page, 'chat-tidy-character.png')
    await page.getByTestId('continue-chat').click()
    await arriveAt(page, `**/chat/${second}`, 'Continue (the second chat)')

    // Search finds the Japanese message and opens its chat at it.
    await page.goto(`${server.url}/chats`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('chat-search-input').fill('灯台')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const results = page.getByTestId('chat-search-results')
    await results.getByText('灯台', { exact: true }).waitFor()
    expect(await results.getByRole('link').count()).toBe(1)
    await shootFromTop(page, 'chat-tidy-search.png')
    expect(await seriousA11yViolations(page)).toEqual([])
    await results.getByRole('link').click()
    await arriveAt(
      page,
      (url) => url.pathname === `/chat/${first}` && url.searchParams.has('message'),
      'a search result',
    )
    await page.locator('[data-found]').getByText('東京の灯台で会いましょう。').waitFor()

    // Pin the older chat: it goes on top. Rename the other.
    await page.goto(`${server.url}/chats`)
    await page.waitForFunction(HYDRATED)
    const rows = page.getByTestId('chat-row')
    await rows.nth(1).waitFor()
    expect(await rows.first().getByRole('link', { name: 'Continue' }).getAttribute('href')).toBe(`/chat/${second}`)
    await rows.nth(1).getByRole('button', { name: 'Pin' }).click()
    await rows.first().getByTestId('pinned').waitFor()
    expect(await rows.first().getByRole('link', { name: 'Continue' }).getAttribute('href')).toBe(`/chat/${first}`)
    await rows.nth(1).getByRole('button', { name: 'Rename' }).click()
    await page.getByTestId('chat-title-input').fill('The mill')
    await page.getByRole('button', { name: 'Save' }).click()
    await rows.nth(1).getByTestId('chat-row-name').filter({ hasText: 'The mill' }).waitFor()
    await page.getByTestId('my-chats').getByText('The mill').waitFor()
    await shootFromTop(page, 'chat-tidy-list.png', { fullPage: true })

    // Delete, then undo: the chat comes back.
    await rows.nth(1).getByRole('button', { name: 'Delete chat' }).click()
    await page.getByText('Chat deleted.').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="chat-row"]').length === 1)
    await page.getByRole('button', { name: 'Undo' }).click()
    await page.getByText('Chat restored.').waitFor()
    await rows.nth(1).getByTestId('chat-row-name').filter({ hasText: 'The mill' }).waitFor()
    expect(errors).toEqual([])

    // The same pages in Arabic.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('continue-chat').waitFor()
    await page.getByTestId('character-chats').getByRole('link').nth(1).waitFor()
    await shootFromTop(page, 'chat-tidy-character-ar.png')
    await page.goto(`${server.url}/ar/chats`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('chat-search-input').fill('灯台')
    await page.getByTestId('chat-search-input').press('Enter')
    await page.getByTestId('chat-search-results').getByRole('link').waitFor()
    await page.getByTestId('chat-row').nth(1).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-tidy-ar.png'), fullPage: true })
    expect(errors).toEqual([])
    await context.close()
  })
})
