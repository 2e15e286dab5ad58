import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OpenAiApiDouble } from '#tests/doubles/openai-api.ts'
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
  startWithModelDouble,
  stopWithModelDouble,
} from './browser.ts'

// Issue 22 items 3 and 4 (ADR 050): the greeting chosen among the character's greetings before the
// first message (arrows and ←/→, in a right-to-left page too), then "Branch from here" on the 2nd
// message opens a new chat that links back to its parent, and the parent lists it.

const teller = { username: 'teller', email: 'teller@example.test', password: 'a fork in the forest road' }
const REPLY = 'The keeper trims the wick.'

const english = {
  name: 'Orla Finch',
  introduction: 'A lighthouse keeper who collects the letters the sea brings in.',
  firstMessage: 'Come in out of the rain, {{user}}.',
  alternateGreetings: ['Another letter washed up today.', 'The lamp needs oil. Hold this.'],
  sourceLanguage: 'en',
}
const arabic = {
  name: 'ليلى الساعاتية',
  introduction: 'صانعة ساعات في سوق قديم، تعرف قصة كل ساعة تصلحها.',
  firstMessage: 'أهلًا يا {{user}}، الساعة على الطاولة توقفت منذ الصباح.',
  alternateGreetings: ['جئت في وقتك تمامًا، اجلس.', 'هل تسمع هذا التكتكة؟ إنها تعدّ شيئًا ما.'],
  sourceLanguage: 'ar',
}

describe.skipIf(!chromiumPath)('greeting choice and branches in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let englishId = ''
  let arabicId = ''

  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble(REPLY, { users: [teller] }))
    const token = await apiLogin(server.url, teller)
    englishId = await createCharacter(server.url, token, english)
    arabicId = await createCharacter(server.url, token, arabic)
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  const greeting = (page: Page) => page.getByTestId('message-assistant').first()
  const position = (page: Page) => greeting(page).getByTestId('swipe-position')
  const sessionIdOf = (page: Page) => /\/chat\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? ''

  it('chooses the greeting with the arrows and keys, sends, branches from the 2nd message and links both ways', async () => {
    const { page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, teller)
    await startChat(page, server.url, englishId)
    await greeting(page).getByText('Come in out of the rain, teller.').waitFor()
    await page.getByTestId('greeting-choice').waitFor()
    expect(await position(page).textContent()).toBe('1 / 3')
    expect(await greeting(page).getByRole('button', { name: 'Previous alternative' }).isDisabled()).toBe(true)

    await greeting(page).getByRole('button', { name: 'Next alternative' }).click()
    await greeting(page).getByText('Another letter washed up today.').waitFor()
    expect(await position(page).textContent()).toBe('2 / 3')
    // The keys, with the (empty) message box focused as it is when the page opens.
    await page.locator('#chat-input').focus()
    await page.keyboard.press('ArrowRight')
    await greeting(page).getByText('The lamp needs oil. Hold this.').waitFor()
    expect(await position(page).textContent()).toBe('3 / 3')
    // Greetings are a fixed set: nothing past the last.
    expect(await greeting(page).getByRole('button', { name: 'Next alternative' }).isDisabled()).toBe(true)
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowLeft')
    await greeting(page).getByText('Another letter washed up today.').waitFor()
    expect(await position(page).textContent()).toBe('2 / 3')
    // With text in the box, the arrows move the caret, not the greeting.
    await page.locator('#chat-input').fill('Hello')
    await page.keyboard.press('ArrowLeft')
    expect(await position(page).textContent()).toBe('2 / 3')
    await page.locator('#chat-input').fill('')
    await page.keyboard.press('ArrowRight')
    await greeting(page).getByText('The lamp needs oil. Hold this.').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-greeting-choice.png') })

    // Once the user writes, the chosen greeting stays: the model got it, the arrows are gone.
    await sendWithEnter(page, 'Where does this oil go?')
    await page.getByTestId('message-assistant').filter({ hasText: REPLY }).waitFor()
    const asked = JSON.stringify(model.requests.filter((r) => r.stream).at(-1)?.messages)
    expect(asked).toContain('The lamp needs oil. Hold this.')
    expect(asked).not.toContain('Come in out of the rain')
    expect(await page.getByTestId('greeting-choice').count()).toBe(0)
    expect(await greeting(page).getByTestId('swipe-position').count()).toBe(0)
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()

    // Branch from the 2nd message (the user's): a new chat with the greeting and that message.
    const parentId = sessionIdOf(page)
    const asks = model.requests.length
    await page.getByTestId('message-user').getByRole('button', { name: 'Branch from here' }).click()
    await page.waitForURL((url) => url.pathname.startsWith('/chat/') && !url.pathname.endsWith(parentId))
    const branchId = sessionIdOf(page)
    await page.getByTestId('branched-from').waitFor()
    await page.getByTestId('message-user').filter({ hasText: 'Where does this oil go?' }).waitFor()
    await greeting(page).getByText('The lamp needs oil. Hold this.').waitFor()
    expect(await page.getByTestId('message-assistant').count()).toBe(1)
    expect(await page.getByTestId('message-user').count()).toBe(1)
    expect(model.requests.length).toBe(asks)
    // My Chats lists the branch beside its parent.
    await page.locator(`a[href="/chat/${branchId}"]`).first().waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-branch.png') })

    // The link goes back to the parent, untouched, which lists its branch.
    await page.getByTestId('branched-from').click()
    await page.waitForURL((url) => url.pathname.endsWith(parentId))
    await page.getByTestId('message-assistant').filter({ hasText: REPLY }).waitFor()
    expect(await page.getByTestId('message-user').count()).toBe(1)
    const list = page.getByTestId('chat-branches')
    await list.getByText('Branches of this chat (1)').click()
    await list.getByRole('link').filter({ hasText: 'Where does this oil go?' }).click()
    await page.waitForURL((url) => url.pathname.endsWith(branchId))
    await page.getByTestId('branched-from').waitFor()
    expect(errors).toEqual([])
    await page.context().close()
  })

  it('in Arabic: the greetings in Arabic, ← shows the next one in a right-to-left page, and the branch links', async () => {
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, teller)
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/chat/new?roleId=${arabicId}`)
    await page.waitForURL((url) => /\/ar\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await greeting(page).getByText('أهلًا يا teller، الساعة على الطاولة توقفت منذ الصباح.').waitFor()
    await page.getByTestId('greeting-choice').getByText('اختر التحية التي تبدأ بها قصتك').waitFor()
    await page.locator('#chat-input').focus()
    // In a right-to-left page the "next" arrow is on the left: ← goes forward, → back.
    await page.keyboard.press('ArrowLeft')
    await greeting(page).getByText('جئت في وقتك تمامًا، اجلس.').waitFor()
    await page.keyboard.press('ArrowLeft')
    await greeting(page).getByText('هل تسمع هذا التكتكة؟').waitFor()
    await page.keyboard.press('ArrowRight')
    await greeting(page).getByText('جئت في وقتك تمامًا، اجلس.').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-greeting-choice-ar.png') })

    await sendWithEnter(page, 'ما الذي تعدّه الساعة؟')
    await page.getByTestId('message-assistant').filter({ hasText: REPLY }).waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'متصل' }).waitFor()
    const parentId = sessionIdOf(page)
    await page.getByTestId('message-user').getByRole('button', { name: 'تفرّع من هنا' }).click()
    await page.waitForURL((url) => url.pathname.startsWith('/ar/chat/') && !url.pathname.endsWith(parentId))
    await page.getByTestId('branched-from').getByText('متفرّعة من محادثة').waitFor()
    expect(await page.getByTestId('message-user').count()).toBe(1)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-branch-ar.png') })
    await page.getByTestId('branched-from').click()
    await page.waitForURL((url) => url.pathname.endsWith(parentId))
    await page.getByTestId('chat-branches').getByText('فروع هذه المحادثة').click()
    await page.getByTestId('chat-branches').getByRole('link').first().waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'chat-branches-ar.png') })
    expect(errors).toEqual([])
    await page.context().close()
  })
})
