import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './browser.ts'

// DESIGN.md budget: the home page's first-load JavaScript ≤ 150 kB gzip. This is a size check, not a
// timing: it fails only when the budget is exceeded by more than 10 %.
const HOME_JS_BUDGET_BYTES = 150 * 1024
const TOLERANCE = 1.1

describe('first-load JavaScript of the home page', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())

  it('stays within the budget (gzip)', async () => {
    const html = await (await fetch(`${server.url}/`, { headers: { cookie: 'lang=en' } })).text()
    const scripts = [...html.matchAll(/rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1] ?? '')
    expect(scripts.length).toBeGreaterThan(0)
    const clientDir = path.resolve(import.meta.dirname, '..', '..', 'build', 'client')
    const bytes = scripts.reduce(
      (sum, src) => sum + gzipSync(readFileSync(path.join(clientDir, src)), { level: 9 }).length,
      0,
    )
    console.info(`home first-load JS: ${(bytes / 1024).toFixed(1)} kB gzip (budget ${HOME_JS_BUDGET_BYTES / 1024} kB)`)
    expect(bytes).toBeLessThanOrEqual(HOME_JS_BUDGET_BYTES * TOLERANCE)
  })
})
