import { readFile } from 'node:fs/promises'
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

// Issue 22 item 6 (ADR 051): a chat with swipes downloaded from the chat header as SillyTavern's
// JSONL, imported again from the character's page, is the same chat: every message and swipe.

const archivist = { username: 'archivist', email: 'archivist@example.test', password: 'a ledger of every tide' }

/** The test's own reader of SillyTavern's JSONL: per message what a round trip must keep. */
function readJsonl(text: string) {
  const [header, ...messages] = text.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  return {
    header: { user_name: header?.user_name, character_name: header?.character_name },
    messages: messages.map((m) => ({
      is_user: m.is_user,
      mes: m.mes,
      send_date: m.send_date,
      swipes: m.swipes ?? null,
      swipe_id: m.swipe_id ?? null,
    })),
  }
}

describe.skipIf(!chromiumPath)('chat history in and out in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  let take = 0
  beforeAll(async () => {
    ;({ server, browser, model } = await startWithModelDouble(
      () => `Take ${++take}: the tide is out, the boats sleep.`,
      { users: [archivist] },
    ))
  })
  afterAll(async () => {
    await stopWithModelDouble({ server, browser, model })
  })

  async function exportFrom(page: Page, format: 'sillytavern' | 'markdown') {
    await page.getByTestId('chat-export-menu').click()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId(`chat-export-${format}`).click(),
    ])
    return { name: download.suggestedFilename(), text: await readFile((await download.path()) as string, 'utf8') }
  }

  it('exports a chat with swipes and imports it again as an equal chat; in English and Arabic', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; name: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    if (!role) throw new Error('no character to chat with')
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, archivist)
    await startChat(page, server.url, role.roleId)

    // A reply, then a second alternative of it: the second is shown.
    await page.getByLabel('Your message').fill('Where are the boats?')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.locator('#main').getByText('Take 1: the tide is out').first().waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
    await page.getByRole('button', { name: 'Regenerate' }).last().click()
    await page.locator('#main').getByText('Take 2: the tide is out').first().waitFor()
    await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()

    const first = await exportFrom(page, 'sillytavern')
    expect(first.name).toMatch(/\.jsonl$/)
    expect(first.name.startsWith(role.name.replace(/[\\/:*?"<>|]+/g, '_'))).toBe(true)
    const read = readJsonl(first.text)
    expect(read.header).toEqual({ user_name: 'archivist', character_name: role.name })
    const lastReply = read.messages.at(-1)
    expect(lastReply).toMatchObject({
      is_user: false,
      mes: 'Take 2: the tide is out, the boats sleep.',
      swipes: ['Take 1: the tide is out, the boats sleep.', 'Take 2: the tide is out, the boats sleep.'],
      swipe_id: 1,
    })
    const markdown = await exportFrom(page, 'markdown')
    expect(markdown.name).toMatch(/\.md$/)
    expect(markdown.text).toContain('Where are the boats?')

    // The menu, open, as the user sees it.
    await page.getByTestId('chat-export-menu').click()
    await page.getByTestId('chat-export-sillytavern').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-export-menu.png') })
    await page.keyboard.press('Escape')
    await page.getByTestId('chat-export-sillytavern').waitFor({ state: 'detached' })

    // Imported from the character's page: a new chat opens, every message marked imported.
    await page.goto(`${server.url}/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('button', { name: 'Import a SillyTavern chat' }).waitFor()
    const before = page.url()
    await page.getByTestId('import-chat-file').setInputFiles({
      name: first.name,
      mimeType: 'application/jsonl',
      buffer: Buffer.from(first.text),
    })
    await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && url.href !== before)
    await page.getByText('Chat imported.').waitFor()
    const importedPath = new URL(page.url()).pathname
    // Awaited, not counted at once: until the chat page has replaced the character page, the
    // text can also be the character page's own preview of this chat (its "Your chats" list).
    await page.getByTestId('imported-mark').first().waitFor()
    await expect.poll(() => page.getByTestId('imported-mark').count()).toBe(read.messages.length)
    await page.locator('#main').getByText('Take 2: the tide is out').first().waitFor()
    // The swipe stays: the reply shows 2 / 2 and its first alternative is one step back.
    await page.locator('#main').getByText('2 / 2').waitFor()
    await page.getByRole('button', { name: 'Previous alternative' }).click()
    await page.locator('#main').getByText('Take 1: the tide is out').first().waitFor()
    await page.getByRole('button', { name: 'Next alternative' }).click()
    await page.locator('#main').getByText('Take 2: the tide is out').first().waitFor()

    // Round trip: the imported chat's download equals the first, read by the test's own reader.
    const second = await exportFrom(page, 'sillytavern')
    expect(readJsonl(second.text)).toEqual(read)
    await page.keyboard.press('Escape')
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-imported.png') })
    // The story goes on from the imported reply: it is regenerated like any reply, a third alternative.
    await page.getByRole('button', { name: 'Regenerate' }).last().click()
    await page.locator('#main').getByText('Take 3: the tide is out').first().waitFor()
    await page.locator('#main').getByText('3 / 3').waitFor()

    // A file that is no chat: refused under the button, in words, and nothing opens.
    await page.goto(`${server.url}/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('import-chat-file').setInputFiles({
      name: 'notes.jsonl',
      mimeType: 'application/jsonl',
      buffer: Buffer.from('{"user_name":"You","character_name":"A"}\n{"mes": 42}'),
    })
    await page.getByTestId('import-chat-problem').getByText('Line 2 is not a SillyTavern chat message.').waitFor()
    expect(new URL(page.url()).pathname).toBe(`/characters/${role.roleId}`)
    expect(errors).toEqual([])

    // Arabic: the same page and menu, translated, right to left.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/characters/${role.roleId}`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByRole('button', { name: 'استيراد محادثة من SillyTavern' }).waitFor()
    await page.screenshot({ path: path.join(screenshotDir, 'chat-import-ar.png') })
    await page.goto(`${server.url}/ar${importedPath}`)
    await page.waitForFunction(HYDRATED)
    await page.getByTestId('imported-mark').first().getByText('مستوردة').waitFor()
    await page.getByRole('button', { name: 'تنزيل هذه المحادثة' }).click()
    await page.getByRole('button', { name: 'تصدير (SillyTavern)' }).waitFor()
    await page.getByRole('button', { name: 'تصدير (Markdown)' }).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'chat-export-menu-ar.png') })
    expect(errors).toEqual([])
    await context.close()
  })
})
