import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
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

const rememberer = { username: 'rememberer', email: 'rememberer@example.test', password: 'a lantern over the harbour' }
/** About 800 tokens: four of them with their replies no longer fit the free plan's 4K memory. */
const LONG = `${'The storm rolled in from the north and the harbour lights went out one by one. '.repeat(48).trim()}`

/**
 * The memory panel when summaries keep failing (ADR 034): the chat's replies come from a model
 * double; summaries run on SUMMARY_MODEL, whose server is down, so they fail for real until the
 * panel shows why, in English and in Arabic.
 */
describe.skipIf(!chromiumPath)('memory panel in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let model: OpenAiApiDouble
  beforeAll(async () => {
    model = await startOpenAiApi({ reply: () => 'The keeper nods and trims the wick.' })
    const modelsFile = writeModelsFile([
      { id: 'e2e-model', premium: false, baseUrl: model.baseUrl },
      // Nothing listens on port 9: every summary fails as "could not be reached".
      { id: 'memory-model', premium: false, baseUrl: 'http://127.0.0.1:9/v1' },
    ])
    ;({ server, browser } = await startServerAndBrowser(
      { MODELS_FILE: modelsFile, SUMMARY_MODEL: 'memory-model' },
      { users: [rememberer] },
    ))
  }, 90_000)
  afterAll(async () => {
    await stopServerAndBrowser(server, browser)
    await model?.close()
  })

  async function openMemory(page: Page, label: string) {
    await page.getByRole('button', { name: label, exact: true }).first().click()
    return page.getByRole('dialog')
  }

  it('says since when memory has not been updated and why, and offers Try again', async () => {
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    const role = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)
    const { context, page, errors } = await personPage(browser, server.url)

    await logIn(page, server.url, rememberer)
    await startChat(page, server.url, role?.roleId ?? '')

    // A conversation longer than the free plan's memory: the oldest messages are to be summarised.
    for (let i = 1; i <= 5; i++) {
      await page.getByLabel('Your message').fill(`${i}. ${LONG}`)
      await page.getByRole('button', { name: 'Send' }).click()
      await expect.poll(() => page.getByTestId('message-assistant').count(), { timeout: 15_000 }).toBeGreaterThan(i)
      await page.getByTestId('chat-status').filter({ hasText: 'Online' }).waitFor()
    }
    // Nothing to show after one failure; the job's second attempt comes about 10 s later. The panel
    // asks the server when it opens.
    let dialog = page.getByRole('dialog')
    await expect
      .poll(
        async () => {
          dialog = await openMemory(page, 'Memory')
          await dialog.getByRole('heading', { name: 'Memory' }).waitFor()
          await page.waitForTimeout(500)
          const shown = await dialog.getByTestId('memory-summary-problem').count()
          if (!shown) await dialog.getByRole('button', { name: 'Close' }).click()
          return shown
        },
        { timeout: 45_000, interval: 2000 },
      )
      .toBe(1)
    const notice = dialog.getByTestId('memory-summary-problem')
    await notice.getByText(/Memory has not been updated since .+: the model server could not be reached\./).waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'memory-summary-failing.png') })
    await notice.getByRole('button', { name: 'Try again' }).click()
    await page.getByText(/Memory update started|Nothing to update right now/).waitFor()

    // Arabic: the same notice, right to left, the date in Arabic.
    const sessionId = new URL(page.url()).pathname.split('/').at(-1)
    await page.goto(`${server.url}/ar/chat/${sessionId}`)
    await page.waitForFunction(HYDRATED)
    const arabic = await openMemory(page, 'الذاكرة')
    await arabic
      .getByTestId('memory-summary-problem')
      .getByText('تعذّر الوصول إلى خادم النموذج', { exact: false })
      .waitFor()
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await page.screenshot({ path: path.join(screenshotDir, 'memory-summary-failing-ar.png') })
    expect(errors).toEqual([])
    await context.close()
  }, 150_000)
})
