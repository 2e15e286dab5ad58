import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import {
  chromiumPath,
  HYDRATED,
  logIn,
  personPage,
  type RunningServer,
  seriousA11yViolations,
  shootFromTop,
  startChat,
  startServerAndBrowser,
  stopServerAndBrowser,
} from './browser.ts'

// Issue 22 item 8 (ADR 053): "Write my reply" fills the composer, the author's note is set,
// "Regenerate with…" writes with another model, ↑ edits the last message; English and Arabic.

const writer = { username: 'writer', email: 'writer@example.test', password: 'a lantern over the harbour' }
const DRAFT = 'I shake the rain from my coat.'

describe.skipIf(!chromiumPath)('the small things of the chat in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  beforeAll(async () => {
    model = await startOpenAiApi({
      reply: (messages) =>
        JSON.stringify(messages).includes('next message in the role-play') ? DRAFT : 'The keeper nods.',
    })
    const modelsFile = writeModelsFile([
      { id: 'e2e-model', name: 'Keeper 8B', premium: false, baseUrl: model.baseUrl },
      { id: 'second-model', name: 'Bard 12B', premium: false, baseUrl: model.baseUrl },
    ])
    ;({ server, browser } = await startServerAndBrowser({ MODELS_FILE: modelsFile }, { users: [writer] }))
  }, 90_000)
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
    await model?.close()
  })

  it('impersonate, author’s note, regenerate with, ↑ to edit', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    const { context, page, errors } = await personPage(browser, server.url)
    await logIn(page, server.url, writer)
    await startChat(page, server.url, role?.roleId ?? '')
    const sessionId = /\/chat\/([^/?]+)/.exec(page.url())?.[1]

    // Write my reply: the draft streams into the composer, is edited and sent.
    const box = page.getByLabel('Your message')
    await page.getByTestId('write-my-reply').click()
    await page.waitForFunction((d) => (document.getElementById('chat-input') as HTMLTextAreaElement).value === d, DRAFT)
    await box.fill(`${DRAFT} Then I wave.`)
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByTestId('message-user').filter({ hasText: 'Then I wave.' }).waitFor()
    await page.getByTestId('written-by').filter({ hasText: 'Keeper 8B' }).last().waitFor()

    // The author's note, in the chat settings.
    await page.getByRole('button', { name: 'Settings' }).click()
    const dialog = page.getByRole('dialog', { name: 'Chat settings' })
    await dialog.waitFor()
    await dialog.getByTestId('author-note').getByRole('textbox').fill('Keep the storm close.')
    await dialog.getByTestId('author-note').getByRole('spinbutton').fill('0')
    expect(await seriousA11yViolations(page)).toEqual([])
    await shootFromTop(page, 'chat-writing-aids-note.png')
    await dialog.getByRole('button', { name: 'Save settings' }).click()
    await dialog.waitFor({ state: 'detached' })

    // Regenerate with another model: the new alternative says who wrote it, and it had the note.
    await page.getByTestId('regenerate-with').selectOption('second-model')
    await page.getByTestId('written-by').filter({ hasText: 'Bard 12B' }).waitFor()
    const last = model.requests.filter((r) => r.stream).at(-1)
    expect(last?.model).toBe('second-model')
    expect(JSON.stringify(last?.messages)).toContain('Keep the storm close.')

    // ↑ in the empty composer edits the last message of mine; Escape cancels.
    await box.focus()
    await page.keyboard.press('ArrowUp')
    const edit = page.getByLabel('Edit your message')
    await edit.waitFor()
    expect(await edit.inputValue()).toContain('Then I wave.')
    await shootFromTop(page, 'chat-writing-aids.png')
    await page.keyboard.press('Escape')
    await edit.waitFor({ state: 'detached' })
    expect(errors).toEqual([])

    // Arabic.
    await context.addCookies([{ name: 'lang', value: 'ar', url: server.url }])
    await page.goto(`${server.url}/ar/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByTestId('write-my-reply').filter({ hasText: 'اكتب ردّي' }).waitFor()
    await shootFromTop(page, 'chat-writing-aids-ar.png')
    await context.close()
  })
})
