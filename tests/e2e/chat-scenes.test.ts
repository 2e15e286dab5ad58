import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  screenshotDir,
  sendWithEnter,
  seriousA11yViolations,
  startChat,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Issue 22 item 5 (ADR 052): a chat becomes a scene. Add a second character, send, see the first
// answer, let the second speak without writing, switch the mode; in English and in Arabic.

const host = { username: 'host', email: 'host@example.test', password: 'two voices at one table' }

const alda = {
  name: 'Alda Smith',
  introduction: 'A smith of the northern hills.',
  firstMessage: 'Welcome to the forge, {{user}}.',
  details: 'Alda is a blacksmith.',
  sourceLanguage: 'en',
}
const bran = {
  name: 'Bran Ferry',
  introduction: 'A quiet ferryman.',
  firstMessage: 'Hm.',
  details: 'Bran rows the ferry.',
  sourceLanguage: 'en',
}
const layla = {
  name: 'ليلى',
  introduction: 'صانعة ساعات في سوق قديم.',
  firstMessage: 'أهلًا يا {{user}}.',
  details: 'ليلى تصلح الساعات.',
  sourceLanguage: 'ar',
}
const samir = {
  name: 'سمير',
  introduction: 'بائع قهوة في السوق نفسه.',
  firstMessage: 'تفضل.',
  details: 'سمير يبيع القهوة.',
  sourceLanguage: 'ar',
}

describe.skipIf(!chromiumPath)('group scenes in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    // Each reply says whose card the model was given (the system prompt names the speaker).
    model = await startOpenAiApi({
      reply: (messages) => {
        const system = String(messages[0]?.content ?? '')
        for (const name of ['Bran Ferry', 'Alda Smith', 'سمير', 'ليلى']) {
          if (system.includes(`You are ${name}`)) return `(${name} answers.)`
        }
        return '(someone answers.)'
      },
    })
    ;({ server, browser } = await startServerAndBrowser(
      { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'e2e-model' },
      { users: [host] },
    ))
    const token = await apiLogin(server.url, host)
    for (const [key, fields] of Object.entries({ alda, bran, layla, samir })) {
      ids[key] = await createCharacter(server.url, token, fields)
    }
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
    await model?.close()
  })

  const replies = (page: Page) => page.getByTestId('message-assistant')

  async function addCharacter(page: Page, button: string, search: string, name: string) {
    await page.getByRole('button', { name: button }).click()
    const dialog = page.getByTestId('scene-add-dialog')
    await dialog.getByRole('searchbox').fill(search)
    await dialog.getByRole('button', { name }).click()
    await page.getByTestId('scene-members').waitFor()
  }

  it('adds a character, answers as the one named, lets the other speak, switches the mode', async () => {
    const { page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, host)
    await startChat(page, server.url, ids.alda as string)
    await replies(page).getByText('Welcome to the forge, host.').waitFor()
    await addCharacter(page, 'Add a character', 'Bran', 'Add Bran Ferry')
    const members = page.getByTestId('scene-members')
    await members.getByText('Alda Smith').waitFor()
    await members.getByText('Bran Ferry').waitFor()

    await sendWithEnter(page, 'Alda Smith, is the sword ready?')
    const first = replies(page).filter({ hasText: '(Alda Smith answers.)' })
    await first.waitFor()
    expect(await first.getByTestId('message-author').textContent()).toContain('Alda Smith')
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()

    await page.getByRole('button', { name: 'Let Bran Ferry speak' }).click()
    const second = replies(page).filter({ hasText: '(Bran Ferry answers.)' })
    await second.waitFor()
    expect(await second.getByTestId('message-author').textContent()).toContain('Bran Ferry')
    // No new message of the user's: one from before, and three replies (the greeting, Alda, Bran).
    expect(await page.getByTestId('message-user').count()).toBe(1)
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()

    await page.getByLabel('Who speaks next').selectOption('turns')
    await page.waitForFunction(() => {
      const select = document.querySelector<HTMLSelectElement>('[data-testid="scene-speakers"] select')
      return select?.value === 'turns' && !select.disabled
    })
    // In turn: after Bran comes Alda.
    await sendWithEnter(page, 'And now?')
    await replies(page).filter({ hasText: '(Alda Smith answers.)' }).nth(1).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-scene.png') })
    // My Chats names the scene's members on its row.
    await page.goto(`${server.url}/chats`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('chat-row-members').filter({ hasText: 'Alda Smith, Bran Ferry' }).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'chat-scene-my-chats.png') })
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('in Arabic: right to left, the members and their replies named', async () => {
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, host)
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/chat/new?roleId=${ids.layla}`)
    await page.waitForURL((url) => /\/ar\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await addCharacter(page, 'أضف شخصية', 'سمير', 'أضف سمير')
    await page.getByRole('button', { name: 'أعطِ الكلمة لـسمير' }).click()
    await replies(page).filter({ hasText: '(سمير answers.)' }).waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'متصل' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-scene-ar.png') })
    expect(errors).toEqual([])
    await page.context().close()
  })
})
