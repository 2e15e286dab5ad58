import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

const root = path.resolve(import.meta.dirname, '..', '..')

/**
 * Chromium from CHROMIUM_PATH, Debian's /usr/bin/chromium, or Playwright's cache. Browser tests
 * report themselves skipped without one, unless REQUIRE_E2E=1 (CI), where that is a failure.
 */
function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  const cache = path.join(homedir(), '.cache', 'ms-playwright')
  if (existsSync(cache)) {
    for (const dir of readdirSync(cache).filter((d) => d.startsWith('chromium')))
      candidates.push(
        path.join(cache, dir, 'chrome-linux', 'chrome'),
        path.join(cache, dir, 'chrome-linux64', 'chrome'),
      )
  }
  return candidates.find((c): c is string => Boolean(c && existsSync(c))) ?? null
}

export const chromiumPath = findChromium()
if (!chromiumPath && process.env.REQUIRE_E2E === '1') {
  throw new Error('REQUIRE_E2E=1 but no Chromium was found (set CHROMIUM_PATH or apt-get install chromium)')
}

export async function launchBrowser(): Promise<Browser> {
  if (!chromiumPath) throw new Error('no Chromium')
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export type RunningServer = { url: string; stop(signal?: NodeJS.Signals): Promise<number | null>; output(): string }

/**
 * Starts the real built server (`node server/index.ts`) on a free port with a fresh data folder.
 * `syntheticRoles` first seeds that many generated roles (through `npm run db:seed`'s script), for
 * lists long enough to page through.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { syntheticRoles?: number; users?: { username: string; email: string; password: string }[] } = {},
): Promise<RunningServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'rp-e2e-'))
  const seedArgs = [
    ...(options.syntheticRoles ? ['--synthetic', String(options.syntheticRoles)] : []),
    ...(options.users ?? []).flatMap((u) => ['--user', `${u.username}:${u.email}:${u.password}`]),
  ]
  if (seedArgs.length > 0) {
    execFileSync(process.execPath, ['db/seed/seed-cli.ts', ...seedArgs], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      stdio: 'ignore',
    })
  }
  const child = spawn(process.execPath, ['server/index.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
      // A closed local port unless the test names a model (or '' for the embedded one, ADR 036).
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      ...env,
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`)
    try {
      const res = await fetch(`${url}/readyz`)
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not become ready:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal)
      return exited
    },
  }
}

const axeSource = createRequire(import.meta.url)('axe-core').source as string

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }

/**
 * Runs axe-core in the page (WCAG 2.1 A/AA rules) and returns the serious and critical violations.
 * Evaluated through the DevTools protocol, so the page's CSP does not have to allow it.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  // Measure a settled page: colours mid-transition (fades, the list's loading dim) are not what
  // a person reads.
  await page.waitForLoadState('networkidle')
  await page.waitForTimeout(600)
  const result = (await page.evaluate(`(async () => {
    ${axeSource}
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))
  })()`)) as AxeViolation[]
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/**
 * A desktop Chrome user agent. Headless Chromium announces itself as HeadlessChrome, which is a
 * bot to `isbot`, and bots are never redirected by language; tests of what people see use this.
 */
export const PERSON_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'

export const screenshotDir = path.join(root, 'tests', 'e2e', 'screenshots')

/** True once React has hydrated the page (its root container is on `document`). */
export const HYDRATED = () => Object.keys(document).some((k) => k.startsWith('__reactContainer'))

/** Logs in through the login page (English labels) and waits for the signed-in header. */
export async function logIn(page: Page, serverUrl: string, user: { email: string; password: string }) {
  await page.goto(`${serverUrl}/login`)
  await page.waitForFunction(HYDRATED)
  await page.getByLabel('E-mail').fill(user.email)
  await page.getByLabel('Password').fill(user.password)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByRole('button', { name: 'Logout' }).waitFor()
}

/** Starts a chat from a character's page and waits for the chat's own address (not /chat/new). */
export async function startChat(page: Page, serverUrl: string, roleId: string) {
  await page.goto(`${serverUrl}/characters/${roleId}`)
  await page.waitForFunction(HYDRATED)
  await page.getByRole('link', { name: 'Start Chat' }).first().click()
  await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
}
