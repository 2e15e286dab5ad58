import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { firstLoadJsBytes } from '#tests/helpers/first-load-js.ts'
import { type RunningServer, startServer } from './browser.ts'

// DESIGN.md budget: the home page's first-load JavaScript ≤ 150 kB gzip (kB = 1000 bytes). This is a
// size check, not a timing: it fails only when the budget is exceeded by more than 10 %.
// `npm run bench:pages` reports the figure against the budget itself.
const HOME_JS_BUDGET_BYTES = 150_000
const TOLERANCE = 1.1

describe('first-load JavaScript of the home page', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())

  it('stays within the budget (gzip)', async () => {
    const html = await (await fetch(`${server.url}/`, { headers: { cookie: 'lang=en' } })).text()
    const clientDir = path.resolve(import.meta.dirname, '..', '..', 'build', 'client')
    const { total, files } = firstLoadJsBytes(html, clientDir)
    expect(files.length).toBeGreaterThan(0)
    console.info(`home first-load JS: ${(total / 1000).toFixed(1)} kB gzip in ${files.length} files (budget 150 kB)`)
    expect(total).toBeLessThanOrEqual(HOME_JS_BUDGET_BYTES * TOLERANCE)
  })
})
