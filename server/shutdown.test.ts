import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '#tests/helpers/test-app.ts'

describe('graceful shutdown', () => {
  it('finishes requests in flight, refuses new ones, then closes the database', async () => {
    let release: () => void = () => {}
    const t = await buildTestApp({
      configure: (app) => {
        app.get('/api/test/slow', async () => {
          await new Promise<void>((resolve) => {
            release = resolve
          })
          return { code: 0, success: true, message: 'ok', data: 'finished' }
        })
      },
    })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`

    const inFlight = fetch(`${url}/api/test/slow`)
    await new Promise((r) => setTimeout(r, 100))
    const closing = t.app.close()
    await new Promise((r) => setTimeout(r, 100))

    // While draining, the database is still open for the request that needs it...
    await expect(t.database.ping()).resolves.toBeUndefined()
    // ...and nobody new gets in.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()

    release()
    const response = await inFlight
    expect(response.status).toBe(200)
    expect((await response.json()).data).toBe('finished')
    await closing
    await expect(t.database.ping()).rejects.toThrow()
  })
})
