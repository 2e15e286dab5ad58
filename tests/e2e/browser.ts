import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { type OpenAiApiDouble, type OpenAiApiOptions, type Reply, startOpenAiApi } from '#tests/doubles/openai-api.ts'

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

/**
 * How long an action or a wait may take in a browser test, and a navigation. CI runs the browser
 * tests beside the unit tests on two cores, where a step that takes a second here has taken more
 * than Playwright's default 30 s; a real failure still fails, only later.
 */
const ACTION_TIMEOUT_MS = 60_000
const NAVIGATION_TIMEOUT_MS = 90_000

export async function launchBrowser(): Promise<Browser> {
  if (!chromiumPath) throw new Error('no Chromium')
  const browser = await launchChromium(chromiumPath)
  // Every context the tests open (directly or through newPage) gets the longer deadlines.
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (...args: Parameters<Browser['newContext']>) => {
    const context = await newContext(...args)
    context.setDefaultTimeout(ACTION_TIMEOUT_MS)
    context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS)
    return context
  }
  browser.newPage = async (...args: Parameters<Browser['newPage']>) => {
    const context = await browser.newContext(...args)
    const page = await context.newPage()
    // As Playwright's own newPage: the page owns its context, closing one closes the other.
    page.on('close', () => void context.close())
    return page
  }
  return browser
}

function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
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
      // No machine translation (ADR 040) unless the test asks: pages in other locales would send
      // translation requests to the test's model double.
      TRANSLATE_DAILY_CHARACTERS: '0',
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
  // A first start seeds the demo catalogue (pictures in three sizes each): on a loaded two-core CI
  // machine that has taken over a minute.
  const deadline = Date.now() + 150_000
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

/**
 * True once React has committed the hydrated page: the root layout's effect sets
 * `<html data-hydrated>`. (The `__reactContainer` key on `document` comes at `hydrateRoot`, before
 * hydration, which runs as a transition: a click then could land on markup React had yet to take.)
 */
export const HYDRATED = () => document.documentElement.dataset.hydrated === 'true'

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
  // "Start Chat", or "New chat" once the user has chats with the character (ADR 048).
  await page.getByTestId('start-chat').first().click()
  await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
}

/** A server started as `startServer` does, with its users, and a Chromium: what most browser tests need first. */
export async function startServerAndBrowser(
  env: Parameters<typeof startServer>[0] = {},
  options: Parameters<typeof startServer>[1] = {},
): Promise<{ server: RunningServer; browser: Browser }> {
  const server = await startServer(env, options)
  return { server, browser: await launchBrowser() }
}

/**
 * The OpenAI-compatible model double answering `reply` (or started with these options: a reply
 * and its pace), a server whose model is that double (`e2e-model`) with its users, and a
 * Chromium: the start of the chat's browser tests. `env` adds to or overrides the server's
 * settings. Stop them with `stopWithModelDouble`.
 */
export async function startWithModelDouble(
  reply: Reply | OpenAiApiOptions,
  options: Parameters<typeof startServer>[1] & { env?: Parameters<typeof startServer>[0] } = {},
): Promise<{ model: OpenAiApiDouble; server: RunningServer; browser: Browser }> {
  const { env, ...serverOptions } = options
  const model = await startOpenAiApi(typeof reply === 'object' ? reply : { reply })
  const { server, browser } = await startServerAndBrowser(
    { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'e2e-model', ...env },
    serverOptions,
  )
  return { model, server, browser }
}

/** Closes what `startWithModelDouble` started (any may be missing when the start failed). */
export async function stopWithModelDouble(running: {
  model?: OpenAiApiDouble | undefined
  server?: RunningServer | undefined
  browser?: Browser | undefined
}) {
  await stopServerAndBrowser(running.server, running.browser)
  await running.model?.close()
}

/** Closes what `startServerAndBrowser` started (either may be missing when the start failed). */
export async function stopServerAndBrowser(server: RunningServer | undefined, browser: Browser | undefined) {
  await browser?.close()
  await server?.stop()
}

/**
 * A page as a person sees it: a desktop user agent (PERSON_USER_AGENT), the `lang` cookie for
 * `lang`, and the page's uncaught errors collected in `errors`.
 */
export async function personPage(
  browser: Browser,
  serverUrl: string,
  {
    lang = 'en',
    viewport = { width: 1280, height: 900 },
  }: { lang?: string; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport })
  await context.addCookies([{ name: 'lang', value: lang, url: serverUrl }])
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  // React's production errors name only a code; what caused them is in `cause`, which the
  // `pageerror` event does not carry, so the page logs it and it joins the list.
  await page.addInitScript(() => {
    window.addEventListener('error', (event) => {
      const cause = (event.error as { cause?: unknown } | undefined)?.cause
      if (cause) console.debug(`[error cause] ${cause instanceof Error ? cause.stack : String(cause)}`)
    })
  })
  page.on('console', (message) => {
    if (message.text().startsWith('[error cause]')) errors.push(message.text())
  })
  return { context, page, errors }
}

/** Logs in through the API and returns the user's bearer token. */
export async function apiLogin(serverUrl: string, user: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${serverUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password }),
  })
  return ((await res.json()) as { data: { token: string } }).data.token
}

/**
 * A public, not adult character of the token's user, made through the API as the form would
 * (`fields`: the form's other fields; a list is appended once per item). Returns its id.
 */
export async function createCharacter(
  serverUrl: string,
  token: string,
  fields: Record<string, string | readonly string[]>,
): Promise<string> {
  const form = new FormData()
  for (const [name, value] of Object.entries({ ...fields, visibility: 'public', isAdult: 'false' })) {
    for (const item of typeof value === 'string' ? [value] : value) form.append(name, item)
  }
  const res = await fetch(`${serverUrl}/api/addRole?locale=en`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  if (res.status !== 200) throw new Error(`addRole answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { data: { roleId: string } }).data.roleId
}

/** Opens a character's editor (in `locale`'s path, English without) and waits until it is hydrated and shows `readySelector`. */
export async function openCharacterEditor(
  page: Page,
  serverUrl: string,
  roleId: string,
  { locale = '', readySelector = '#character-name' }: { locale?: string; readySelector?: string } = {},
) {
  await page.goto(`${serverUrl}${locale ? `/${locale}` : ''}/characters/edit/form?id=${roleId}`)
  await page.waitForFunction(HYDRATED)
  await page.locator(readySelector).waitFor()
}

/** Saves the character form and waits for the saved character's page (`/characters/<its 12-character id>`). */
export async function saveCharacterForm(page: Page) {
  await page.getByTestId('save-character').click()
  await page.waitForURL(/\/characters\/[a-z0-9]{12}$/)
}

/** A picture of the page scrolled to its top (`fullPage`: all of it), as `file` in screenshotDir. */
export async function shootFromTop(page: Page, file: string, { fullPage = false } = {}) {
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: path.join(screenshotDir, file), fullPage })
}

/**
 * Types `text` into the chat's message box and sends it with Enter once the chat has loaded (its
 * Send button enabled: before that, Enter sends nothing).
 */
export async function sendWithEnter(page: Page, text: string) {
  const input = page.locator('#chat-input')
  await input.fill(text)
  await page.locator('form:has(#chat-input) button[type="submit"]:enabled').waitFor()
  await input.press('Enter')
}
