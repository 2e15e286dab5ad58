import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from './browser.ts'

// The real entry (`node server/index.ts`) as an operator runs it; no browser needed.
describe('server process', () => {
  it('exits cleanly on SIGTERM and starts again on the same embedded database', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-process-'))
    const first = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200)
    expect(await first.stop('SIGTERM')).toBe(0)
    expect(first.output()).toContain('shut down cleanly')

    const second = await startServer({ DATA_DIR: dataDir })
    try {
      expect((await fetch(`${second.url}/readyz`)).status).toBe(200)
    } finally {
      expect(await second.stop('SIGINT')).toBe(0)
    }
  })

  it('answers unknown /api calls with the JSON 404 envelope, not a page', async () => {
    const server = await startServer()
    try {
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${server.url}/api/no-such-call?x=1`, { method, headers: { cookie: 'lang=en' } })
        expect(res.status, method).toBe(404)
        expect(res.headers.get('content-type')).toContain('application/json')
        expect(await res.json()).toMatchObject({ code: 404, success: false, error: 'NOT_FOUND' })
      }
      // Pages still get the HTML 404 page.
      const page = await fetch(`${server.url}/no-such-page`, { headers: { cookie: 'lang=en' } })
      expect(page.status).toBe(404)
      expect(page.headers.get('content-type')).toContain('text/html')
    } finally {
      await server.stop()
    }
  })

  it('refuses to start in production without its secrets, saying which are missing', async () => {
    await expect(startServer({ NODE_ENV: 'production' })).rejects.toThrow(/JWT_SECRET: required in production/)
  })
})
