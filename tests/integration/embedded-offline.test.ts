import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createRole } from '#tests/factories/catalogue.ts'
import { parseEvents } from '#tests/helpers/chat.ts'
import { embeddedAvailable, embeddedEnv } from '#tests/helpers/embedded.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 19, "a fresh clone on a machine that cannot download the model": the embedded model's file
// is not there and its download cannot connect. The site starts and serves, /readyz stays 200,
// /api/models and the provider say why chat is not ready (and the log how to fix it), and a message
// sent meanwhile is kept with a retryable failure.

/** A loopback port nothing listens on (a download from it is refused at once, as offline). */
async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe.skipIf(!embeddedAvailable)('the embedded model when its file cannot be downloaded', () => {
  let t: TestApp
  const lines: string[] = []
  beforeAll(async () => {
    const url = `http://127.0.0.1:${await closedPort()}/models/Some-Model-Q4_K_M.gguf`
    t = await buildTestApp({
      env: embeddedEnv({ EMBEDDED_MODEL: url }),
      logStream: { write: (line) => lines.push(line) },
    })
    void t.app.services.embedded?.start()
  })
  afterAll(async () => {
    await t?.close()
  })

  it('serves, says why chat is not ready and how to fix it, and keeps a message sent meanwhile', async () => {
    await vi.waitFor(() => expect(t.app.embeddedModel?.status().state).toBe('failed'), { timeout: 10_000 })
    const status = t.app.embeddedModel?.status()
    expect(status?.failure?.code).toBe('offline')
    // The operator's fix: where to put a file by hand, or another model.
    expect(status?.failure?.hint).toMatch(/models[\\/]Some-Model-Q4_K_M\.gguf/)
    expect(status?.failure?.hint).toContain('EMBEDDED_MODEL')
    expect(lines.some((l) => JSON.parse(l).level === 40 && l.includes('offline'))).toBe(true)

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json().chatProvider).toMatchObject({ kind: 'embedded', state: 'failed', failure: 'offline' })
    const models = (await t.app.inject({ method: 'GET', url: '/api/models' })).json().data
    expect(models.chatProvider).toEqual({ kind: 'embedded', state: 'failed', percent: null, failure: 'offline' })
    // No path or hint reaches the public API.
    expect(JSON.stringify(models)).not.toContain('127.0.0.1')

    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })
    const post = (url: string, payload: object) => t.injectWithLogin({ method: 'POST', url, payload }, user)
    const sessionId = (await post('/api/createSession', { roleId })).json().data.id as string
    const response = await t.injectWithLogin(
      { method: 'POST', url: '/api/chat/stream', payload: { sessionId, message: 'Is anyone there?' } },
      user,
    )
    const error = parseEvents(response.body).find((e) => e.event === 'error')
    expect(error?.data).toMatchObject({ code: 'MODEL_UNREACHABLE', retryable: true })
    const messages = (await post('/api/messages', { sessionId, limit: 10 })).json().data.items as { content: string }[]
    expect(messages.map((m) => m.content)).toContain('Is anyone there?')
  })
})
