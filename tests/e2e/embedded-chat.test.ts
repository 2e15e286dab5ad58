import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import arChat from '#locales/ar/chat.json' with { type: 'json' }
import enChat from '#locales/en/chat.json' with { type: 'json' }
import { LLAMA_DIR } from '#tests/helpers/llama-server.ts'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  startServer,
} from './browser.ts'

// Issue 19: a chat in the browser on the embedded model (node-llama-cpp in the server process,
// ADR 036) with the tiny real GGUF of ../shared/llama and a real chat template. No model server.

const GGUF = path.join(LLAMA_DIR, 'tiny-llama.gguf')
const TEMPLATE = path.join(LLAMA_DIR, 'templates', 'Qwen-Qwen3-0.6B.jinja')
const installed = await import('node-llama-cpp').then(
  () => true,
  () => false,
)
const chatter = { username: 'localchat', email: 'localchat@example.test', password: 'a lantern over the harbour' }
const LOCALES = { en: { chat: enChat, prefix: '' }, ar: { chat: arChat, prefix: '/ar' } } as const

describe.skipIf(!chromiumPath || !existsSync(GGUF) || !installed)('chat on the embedded model in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let tokens: { token: string; refreshToken: string }
  let roleId = ''
  beforeAll(async () => {
    server = await startServer(
      { LLM_BASE_URL: '', EMBEDDED_MODEL: GGUF, EMBEDDED_CHAT_TEMPLATE: TEMPLATE, EMBEDDED_GPU: 'off' },
      { users: [chatter] },
    )
    browser = await launchBrowser()
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: chatter.email, password: chatter.password }),
    })
    tokens = (await login.json()).data
    const list = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    roleId = (list.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)?.roleId ?? ''
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  for (const locale of ['en', 'ar'] as const) {
    it(`${locale}: sends a message and the embedded model's reply streams in and is stored`, async () => {
      const { chat, prefix } = LOCALES[locale]
      const created = await fetch(`${server.url}/api/createSession`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.token}` },
        body: JSON.stringify({ roleId }),
      })
      const sessionId = (await created.json()).data.id as string
      const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width: 1100, height: 800 } })
      await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
      await context.addInitScript((pair) => {
        localStorage.setItem('token', pair.token)
        localStorage.setItem('refreshToken', pair.refreshToken)
      }, tokens)
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${server.url}${prefix}/chat/${sessionId}`)
      await page.waitForFunction(HYDRATED)
      await page.getByTestId('message-assistant').first().waitFor()
      await page.getByLabel(chat.messageLabel).fill('Hello, who are you?')
      await page.getByRole('button', { name: chat.send }).click()
      await page.getByTestId('message-user').filter({ hasText: 'Hello, who are you?' }).waitFor()
      // The model's reply (gibberish from random weights) is written and stored.
      await expect
        .poll(async () => {
          const res = await fetch(`${server.url}/api/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.token}` },
            body: JSON.stringify({ sessionId, limit: 10 }),
          })
          const [newest] = (await res.json()).data.items as { author: string; status: string; content: string }[]
          return newest?.author === 'assistant' && newest.content.length > 0 ? newest.status : 'none'
        })
        .toMatch(/^(complete|cut)$/)
      await expect.poll(() => page.getByTestId('message-assistant').count()).toBe(2)
      expect(((await page.getByTestId('message-assistant').last().innerText()) ?? '').trim().length).toBeGreaterThan(0)
      await page.screenshot({ path: path.join(screenshotDir, `embedded-chat-${locale}.png`) })
      expect(errors).toEqual([])
      await context.close()
    })
  }

  it('shuts down cleanly on SIGTERM with the model loaded (exit code 0)', async () => {
    // node-llama-cpp loads signal-exit, which re-raises a signal once it is the last listener.
    expect(await server.stop('SIGTERM')).toBe(0)
  })
})
