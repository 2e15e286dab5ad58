import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatMessage } from '#contracts/chat.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 18 item 6 through the product against a real llama.cpp server (../shared/llama): a reply
// cut at its length is stored as cut, and Continue extends it in place without repeating it.
// Skipped (never passed) on a machine without ../shared/llama.

const LLAMA = path.resolve(import.meta.dirname, '../../../../shared/llama')
const present = existsSync(path.join(LLAMA, 'run.sh')) && existsSync(path.join(LLAMA, 'llama-server'))

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe.skipIf(!present)('a cut reply and Continue on llama-server (ChatML, 512 tokens)', () => {
  let server: ChildProcess
  let t: TestApp
  beforeAll(async () => {
    const port = await freePort()
    server = spawn(path.join(LLAMA, 'run.sh'), [String(port), '512', '-'], { stdio: 'ignore' })
    const deadline = Date.now() + 30_000
    while (
      !(await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('llama-server did not start')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const modelsFile = writeModelsFile([
      { id: 'tiny', name: 'Tiny', premium: false, contextTokens: 512, baseUrl: `http://127.0.0.1:${port}/v1` },
    ])
    t = await buildTestApp({ env: { MODELS_FILE: modelsFile, LLM_HEALTH_INTERVAL_MS: '0' } })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    server?.kill()
  })

  const post = (session: Awaited<ReturnType<TestApp['login']>>, url: string, payload: object) =>
    t.injectWithLogin({ method: 'POST', url, payload }, session)

  it('stores the cut reply as cut and appends the continuation to it', async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })
    const sessionId = (await post(user, '/api/createSession', { roleId })).json().data.id as string
    const sent = await post(user, '/api/chat', { sessionId, message: 'Tell me a long story.', chatModelId: 'tiny' })
    expect(sent.statusCode).toBe(200)
    const first = sent.json().data.reply as ChatMessage
    // The tiny model with random weights rarely stops by itself: the reply reserve cuts it.
    expect(first.status).toBe('cut')

    const continued = await post(user, '/api/chat/continue', { sessionId, chatModelId: 'tiny' })
    expect(continued.statusCode).toBe(200)
    const reply = continued.json().data.reply as ChatMessage
    expect(reply.id).toBe(first.id)
    expect(reply.swipeCount).toBe(1)
    expect(reply.content.startsWith(first.content)).toBe(true)
    const added = reply.content.slice(first.content.length)
    expect(added.length).toBeGreaterThan(0)
    // llama.cpp repeats the continued text at the start of its stream; it is not stored twice.
    expect(added.startsWith(first.content)).toBe(false)
  })
})
