import { readFile } from 'node:fs/promises'
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
  seriousA11yViolations,
  startChat,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Issue 22, "Done when": one person's evening with the chat in a single journey. They continue a
// chat from the character's page, switch persona, branch the story, turn the branch into a scene of
// two characters, and take the chat out as a SillyTavern file and bring it back in (equal, read by
// the test's own reader); the scene in Arabic too.

const storyteller = { username: 'storyteller', email: 'storyteller@example.test', password: 'the rest of the tale' }
const keeper = {
  name: 'Ada Quill',
  introduction: 'A map-maker who draws the coast from memory.',
  firstMessage: 'The ink is still wet, {{user}}. Mind the edges.',
  sourceLanguage: 'en',
}
const ferryman = {
  name: 'Bram Oake',
  introduction: 'A ferryman who knows every sandbar.',
  firstMessage: 'Mind the gunwale.',
  details: 'Bram rows the night ferry and distrusts maps.',
  sourceLanguage: 'en',
}

/** The test's own reader of SillyTavern's JSONL: what a round trip must keep, message by message. */
function readJsonl(text: string) {
  const [header, ...messages] = text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  return {
    header: { user_name: header?.user_name, character_name: header?.character_name },
    messages: messages.map((m) => ({
      is_user: m.is_user,
      name: m.name,
      mes: m.mes,
      send_date: m.send_date,
      swipes: m.swipes ?? null,
      swipe_id: m.swipe_id ?? null,
    })),
  }
}

const chatIdOf = (page: Page) => /\/chat\/([^/?]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? ''

describe.skipIf(!chromiumPath)('a chat journey in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let take = 0
  let keeperId = ''
  beforeAll(async () => {
    model = await startOpenAiApi({ reply: () => `Line ${++take} of the coast.` })
    ;({ server, browser } = await startServerAndBrowser(
      { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'e2e-model' },
      { users: [storyteller] },
    ))
    const token = await apiLogin(server.url, storyteller)
    keeperId = await createCharacter(server.url, token, keeper)
    await createCharacter(server.url, token, ferryman)
    for (const persona of [
      { name: 'Tamsin', description: 'Tamsin sails a small boat along the coast.' },
      { name: 'Mara Vell', description: 'Mara is a harbour pilot who reads the tides.' },
    ]) {
      const res = await fetch(`${server.url}/api/personas`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(persona),
      })
      expect(res.status).toBeLessThan(300)
    }
  })
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
    await model?.close()
  })

  const lastSystemPrompt = () => String(model.requests.filter((r) => r.stream).at(-1)?.messages[0]?.content ?? '')

  async function send(page: Page, text: string) {
    const expected = `Line ${take + 1} of the coast.`
    await page.getByLabel('Your message').fill(text)
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByTestId('message-assistant').filter({ hasText: expected }).first().waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
  }

  async function exportSillyTavern(page: Page) {
    await page.getByTestId('chat-export-menu').click()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('chat-export-sillytavern').click(),
    ])
    const text = await readFile((await download.path()) as string, 'utf8')
    await page.keyboard.press('Escape')
    return { name: download.suggestedFilename(), text }
  }

  it('continues, switches persona, branches, plays a scene of two and takes the chat out and back in', {
    timeout: 300_000,
  }, async () => {
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, storyteller)

    // A first evening: a chat with one reply.
    await startChat(page, server.url, keeperId)
    const first = chatIdOf(page)
    await send(page, 'I bring you the soundings from the north bay.')

    // The next evening: the character's page offers to continue it.
    await page.goto(`${server.url}/characters/${keeperId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('continue-chat').click()
    await page.waitForURL(`**/chat/${first}`, { timeout: 90_000 })
    await page.getByTestId('message-user').filter({ hasText: 'north bay' }).waitFor()

    // Tonight they play Mara: the next reply is written for her.
    await page.getByTestId('persona-select').selectOption({ label: 'Mara Vell' })
    await page.getByText('From the next reply, you are Mara Vell.').waitFor()
    await send(page, 'The tide turns at dusk.')
    expect(lastSystemPrompt()).toContain('## Mara Vell\nMara is a harbour pilot who reads the tides.')

    // A second take of that reply, so the chat carries swipes out and back in.
    await page.getByRole('button', { name: 'Regenerate' }).last().click()
    await page
      .getByTestId('message-assistant')
      .filter({ hasText: `Line ${take} of the coast.` })
      .first()
      .waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()

    // What if the soundings had been wrong? Branch from the first message.
    await page
      .getByTestId('message-user')
      .filter({ hasText: 'north bay' })
      .getByRole('button', { name: 'Branch from here' })
      .click()
    await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith(first), {
      timeout: 90_000,
    })
    const branch = chatIdOf(page)
    await page.getByTestId('branched-from').waitFor()
    expect(await page.getByTestId('message-user').count()).toBe(1)
    // The branch is still played as Mara.
    expect(await page.getByTestId('persona-select').locator('option:checked').textContent()).toBe('Mara Vell')

    // The branch becomes a scene: Bram joins, Ada answers when named, then Bram speaks unasked.
    await page.getByRole('button', { name: 'Add a character' }).click()
    const dialog = page.getByTestId('scene-add-dialog')
    await dialog.getByRole('searchbox').fill('Bram')
    await dialog.getByRole('button', { name: 'Add Bram Oake' }).click()
    await page.getByTestId('scene-members').getByText('Bram Oake').waitFor()
    await send(page, 'Ada Quill, the soundings were wrong: the bay is deeper.')
    const adaLine = page.getByTestId('message-assistant').filter({ hasText: `Line ${take} of the coast.` })
    expect(await adaLine.getByTestId('message-author').textContent()).toContain('Ada Quill')
    expect(lastSystemPrompt()).toContain('You are Ada Quill')
    const bramLine = page.getByTestId('message-assistant').filter({ hasText: `Line ${take + 1} of the coast.` })
    await page.getByRole('button', { name: 'Let Bram Oake speak' }).click()
    await bramLine.waitFor()
    expect(await bramLine.getByTestId('message-author').textContent()).toContain('Bram Oake')
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
    // Bram's reply was written from his card, knowing Ada only as a scene member would.
    expect(lastSystemPrompt()).toContain('Bram rows the night ferry')
    expect(lastSystemPrompt()).not.toContain('The ink is still wet')
    expect(await page.getByTestId('message-user').count()).toBe(2)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-journey-scene.png') })

    // The original chat, untouched by the branch, out as a SillyTavern file and back in.
    await page.getByTestId('branched-from').click()
    await page.waitForURL(`**/chat/${first}`, { timeout: 90_000 })
    await page.getByTestId('message-user').filter({ hasText: 'The tide turns at dusk.' }).waitFor()
    const out = await exportSillyTavern(page)
    const read = readJsonl(out.text)
    expect(read.messages.filter((m) => m.is_user).map((m) => m.mes)).toEqual([
      'I bring you the soundings from the north bay.',
      'The tide turns at dusk.',
    ])
    expect(read.messages.at(-1)?.swipes).toHaveLength(2)
    expect(read.messages.some((m) => String(m.mes).includes('deeper'))).toBe(false)

    await page.goto(`${server.url}/characters/${keeperId}`)
    await page.waitForFunction(HYDRATED)
    const before = page.url()
    await page.getByTestId('import-chat-file').setInputFiles({
      name: out.name,
      mimeType: 'application/jsonl',
      buffer: Buffer.from(out.text),
    })
    await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && url.href !== before, { timeout: 90_000 })
    await page.getByText('Chat imported.').waitFor()
    const imported = chatIdOf(page)
    expect([first, branch]).not.toContain(imported)
    await page.getByTestId('imported-mark').first().waitFor()
    const back = await exportSillyTavern(page)
    expect(readJsonl(back.text)).toEqual(read)
    expect(errors).toEqual([])

    // The scene in Arabic: the page right to left, the names as they are written.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/chat/${branch}`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByTestId('scene-members').getByText('Bram Oake').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-journey-scene-ar.png') })
    expect(errors).toEqual([])
    await context.close()
  })
})
