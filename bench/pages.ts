// Lighthouse on the production build: home, character list, a character, a blog article, pricing,
// the Arabic home and a chat (signed in: a seeded user's tokens put in the browser's storage first), with the mobile preset (simulated slow 4G and a 4× slower CPU, the budget) and
// the desktop one; performance is the median of 3 runs (1 with BENCH_QUICK=1). Also each page's
// first-load JavaScript (gzip -9 of the module scripts it loads before it is interactive, as
// tests/e2e/budgets.test.ts counts it). Baseline, same run: a minimal static HTML page from a tiny
// server on the same machine (the floor of what Lighthouse's simulation allows). Builds nothing:
// run `npm run build` first. `npm run bench:pages`; writes bench/results/pages.json
// (contract: /work/notes/bench-contract.md). CHROME_PATH picks the browser (default: Chromium).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import lighthouse, { desktopConfig, type Flags, type Result } from 'lighthouse'
import { chromium } from 'playwright-core'
import { firstLoadJsBytes } from '#tests/helpers/first-load-js.ts'

const QUICK = process.env.BENCH_QUICK === '1'
const RUNS = QUICK ? 1 : 3
/** Lighthouse runs stop repeating after this, so the script stays within its 5 minutes. */
const RUN_DEADLINE_MS = (QUICK ? 120 : 250) * 1000
const BUDGET = { performance: 1, accessibility: 1, seo: 1, homeFirstLoadJsBytes: 120_000 }

const root = path.resolve(import.meta.dirname, '..')
const buildDir = path.join(root, 'build')
const clientDir = path.join(buildDir, 'client')

const BASELINE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Baseline page</title><meta name="description" content="A minimal static page: the floor of what Lighthouse measures on this machine.">
</head><body><main><h1>Baseline page</h1><p>A minimal static page with one heading and one paragraph of text, served by a bare Node HTTP server. Nothing else loads.</p></main></body></html>`

type Preset = 'mobile' | 'desktop'
/** `signedIn`: measured as the bench's user, whose tokens are put in the page's storage before each run. */
type Target = { name: string; path: string; budgeted: boolean; baseline?: boolean; signedIn?: boolean }
const BENCH_USER = {
  username: 'bench_reader',
  email: 'bench-reader@example.test',
  password: 'a quiet bench by the sea',
}
type Run = {
  performance: number
  accessibility: number
  seo: number
  bestPractices: number
  fcp: number
  lcp: number
  tbt: number
  cls: number
}

if (!existsSync(path.join(buildDir, 'server', 'index.js')) || !existsSync(clientDir)) {
  console.error('bench/pages.ts measures the production build: run `npm run build` first (no build/ found).')
  process.exit(1)
}
const chromePath = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate): candidate is string => Boolean(candidate && existsSync(candidate)),
)
if (!chromePath) {
  console.error('No Chromium found: install it (apt-get install chromium) or set CHROME_PATH.')
  process.exit(1)
}

const started = Date.now()
const scratch = mkdtempSync(path.join(tmpdir(), 'rp-bench-pages-'))
const cleanups: (() => unknown)[] = [() => rmSync(scratch, { recursive: true, force: true })]
const cleanUp = async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}
// Whatever happens, the server and the browser do not outlive the script.
const children: ChildProcess[] = []
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)))

try {
  const app = await startApp()
  const baseline = await startBaselineServer()
  const chrome = await startChrome()
  console.log(`app on ${app.url}, baseline page on ${baseline.url}, ${chrome.version}`)

  const characterId = await pickCharacter(app.url)
  const chatId = await startChat(app.url, characterId)
  const targets: Target[] = [
    { name: 'baseline (static page)', path: '', budgeted: false, baseline: true },
    { name: 'home `/`', path: '/', budgeted: true },
    { name: 'character list `/characters`', path: '/characters', budgeted: true },
    { name: `character \`/characters/${characterId}\``, path: `/characters/${characterId}`, budgeted: true },
    {
      name: 'article `/blog/how-memory-and-diamonds-work`',
      path: '/blog/how-memory-and-diamonds-work',
      budgeted: true,
    },
    { name: 'pricing `/subscribe`', path: '/subscribe', budgeted: true },
    { name: 'home in Arabic `/ar`', path: '/ar', budgeted: true },
    { name: 'a chat `/chat/…` (signed in)', path: `/chat/${chatId}`, budgeted: true, signedIn: true },
  ]
  // BENCH_PAGES=chat,/ar measures only the pages whose path or name contains one of the words (the
  // baseline always runs): for looking into one page without the five-minute round.
  const only = process.env.BENCH_PAGES?.split(',').filter(Boolean)
  if (only) {
    const kept = targets.filter((t) => t.baseline || only.some((w) => t.path.includes(w) || t.name.includes(w)))
    targets.splice(0, targets.length, ...kept)
  }
  const urlOf = (target: Target) => (target.baseline ? baseline.url : `${app.url}${target.path}`)

  const firstLoad = new Map<Target, { total: number; files: number }>()
  for (const target of targets) {
    const html = await (await fetch(urlOf(target))).text()
    // A chat's first-load JS is that of its shell as served (the chat itself loads after hydration).
    const { total, files } = firstLoadJsBytes(html, target.baseline ? scratch : clientDir)
    firstLoad.set(target, { total, files: files.length })
  }

  // Round robin (every page once, then again) so a noisy minute does not land on one page only.
  const presets: Preset[] = ['mobile', 'desktop']
  const runs = new Map<string, Run[]>()
  const key = (preset: Preset, target: Target) => `${preset} ${target.path}`
  let skipped = 0
  for (let round = 0; round < RUNS; round++) {
    for (const preset of presets) {
      // Desktop is reported, not budgeted: one run.
      if (preset === 'desktop' && round > 0) continue
      for (const target of targets) {
        if (round > 0 && Date.now() - started > RUN_DEADLINE_MS) {
          skipped += 1
          continue
        }
        if (target.signedIn) await signIn(chrome.port, app.url)
        const run = await measure(chrome.port, urlOf(target), preset, target.signedIn === true, {
          name: `${preset}-${(target.path || 'baseline').replace(/[^a-z0-9]+/gi, '_')}-${round + 1}`,
        })
        const list = runs.get(key(preset, target)) ?? []
        list.push(run)
        runs.set(key(preset, target), list)
        console.log(
          `${preset} ${target.path || 'baseline'} run ${round + 1}: performance ${run.performance.toFixed(2)}, ` +
            `LCP ${Math.round(run.lcp)} ms, TBT ${Math.round(run.tbt)} ms, CLS ${run.cls.toFixed(3)}`,
        )
      }
    }
  }

  const summary = (preset: Preset, target: Target) => summarise(runs.get(key(preset, target)) ?? [])
  const tables = presets.map((preset) => {
    const base = summary(preset, targets[0] as Target)
    return {
      caption: `Lighthouse ${preset} (${preset === 'mobile' ? `median of ${RUNS}` : '1 run'}; metrics in ms)`,
      columns: [
        'page',
        'runs',
        'performance',
        'accessibility',
        'SEO',
        'best practices',
        'FCP',
        'LCP',
        'LCP ÷ baseline',
        'TBT',
        'CLS',
        'first-load JS kB',
      ],
      rows: targets.map((target) => {
        const s = summary(preset, target)
        const js = firstLoad.get(target)
        return [
          target.name,
          s.runs,
          s.performance.toFixed(2),
          s.accessibility.toFixed(2),
          s.seo.toFixed(2),
          s.bestPractices.toFixed(2),
          Math.round(s.fcp),
          Math.round(s.lcp),
          `${(s.lcp / base.lcp).toFixed(2)}×`,
          Math.round(s.tbt),
          s.cls.toFixed(3),
          js && js.files > 0 ? `${(js.total / 1000).toFixed(1)} (${js.files} files)` : '0',
        ]
      }),
    }
  })

  const budgets = targets
    .filter((target) => target.budgeted)
    .flatMap((target) => {
      const s = summary('mobile', target)
      return [
        {
          name: `${target.name}: Lighthouse mobile performance (median)`,
          limit: `≥ ${BUDGET.performance}`,
          value: s.performance.toFixed(2),
          met: s.performance >= BUDGET.performance,
          noisy: true,
        },
        {
          name: `${target.name}: accessibility`,
          limit: `= ${BUDGET.accessibility}`,
          value: s.accessibility.toFixed(2),
          met: s.accessibility >= BUDGET.accessibility,
        },
        // A signed-in page is private and says `noindex` on purpose: its SEO score is reported, not budgeted.
        ...(target.signedIn
          ? []
          : [
              {
                name: `${target.name}: SEO`,
                limit: `= ${BUDGET.seo}`,
                value: s.seo.toFixed(2),
                met: s.seo >= BUDGET.seo,
              },
            ]),
      ]
    })
  const home = firstLoad.get(targets[1] as Target)?.total ?? Number.NaN
  budgets.push({
    name: 'home first-load JavaScript (gzip)',
    limit: `≤ ${BUDGET.homeFirstLoadJsBytes / 1000} kB`,
    value: `${(home / 1000).toFixed(1)} kB`,
    met: home <= BUDGET.homeFirstLoadJsBytes,
  })

  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`
  const result = {
    name: 'pages',
    title: 'Pages: Lighthouse and first-load JavaScript',
    date: new Date().toISOString(),
    machine,
    notes: [
      `Lighthouse ${chrome.lighthouseVersion} (default settings: simulated throttling; mobile = slow 4G and 4× CPU slowdown, the budget; desktop preset reported) in ${chrome.version}, headless, against \`NODE_ENV=production node server/index.ts\` on 127.0.0.1 with the demo content; performance is the median of ${RUNS} mobile run${RUNS > 1 ? 's' : ''} (of two, the lower; the runs column says how many were made), interleaved across pages; accessibility, SEO and best practices are the lowest of the runs.`,
      'Baseline (same run): a minimal static HTML page (title, description, a heading and a paragraph) from a bare Node HTTP server on the same machine, the floor Lighthouse’s simulated network allows. LCP ÷ baseline compares each page with it.',
      'First-load JS: gzip -9 of the module scripts a page loads before it is interactive (each once), as `tests/e2e/budgets.test.ts` counts them.',
      ...(skipped > 0 ? [`${skipped} repeat runs were skipped to stay within the time limit.`] : []),
    ],
    tables,
    budgets,
  }
  for (const table of tables) printTable(table)
  console.log('\nbudgets:')
  for (const budget of budgets)
    console.log(`  ${budget.met ? 'met    ' : 'NOT MET'} ${budget.name}: ${budget.value} (${budget.limit})`)
  const outDir = path.join(root, 'bench', 'results')
  mkdirSync(outDir, { recursive: true })
  writeFileSync(path.join(outDir, 'pages.json'), `${JSON.stringify(result, null, 2)}\n`)
  console.log(`\nwrote bench/results/pages.json in ${Math.round((Date.now() - started) / 1000)} s`)
} finally {
  await cleanUp()
}

/** BENCH_PAGES_REPORTS=<folder>: each run's whole Lighthouse report is written there (LCP element, chains...). */
async function measure(
  port: number,
  url: string,
  preset: Preset,
  keepStorage: boolean,
  report: { name: string },
): Promise<Run> {
  const flags: Flags = {
    port,
    // Lighthouse clears the origin's storage before a run; a signed-in page keeps the tokens put there.
    disableStorageReset: keepStorage,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'seo', 'best-practices'],
    disableFullPageScreenshot: true,
  }
  for (let attempt = 1; ; attempt++) {
    const lhr = (await lighthouse(url, flags, preset === 'desktop' ? desktopConfig : undefined))?.lhr
    const run = lhr ? toRun(lhr) : null
    const reports = process.env.BENCH_PAGES_REPORTS
    if (lhr && reports) {
      mkdirSync(reports, { recursive: true })
      writeFileSync(path.join(reports, `${report.name}.json`), JSON.stringify(lhr))
    }
    if (run) return run
    // A trace occasionally comes back without its navigation start on a busy machine: run again.
    if (attempt === 3) throw new Error(`Lighthouse failed three times on ${url}: ${lhr?.runtimeError?.message}`)
  }
}

function toRun(lhr: Result): Run | null {
  const score = (id: string) => lhr.categories[id]?.score
  const metric = (id: string) => lhr.audits[id]?.numericValue
  const run = {
    performance: score('performance'),
    accessibility: score('accessibility'),
    seo: score('seo'),
    bestPractices: score('best-practices'),
    fcp: metric('first-contentful-paint'),
    lcp: metric('largest-contentful-paint'),
    tbt: metric('total-blocking-time'),
    cls: metric('cumulative-layout-shift'),
  }
  return Object.values(run).every((value) => typeof value === 'number') ? (run as Run) : null
}

function summarise(list: Run[]) {
  const median = (pick: (run: Run) => number) => {
    const sorted = list.map(pick).sort((a, b) => a - b)
    return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN
  }
  const lowest = (pick: (run: Run) => number) => Math.min(...list.map(pick))
  return {
    runs: list.length,
    performance: median((r) => r.performance),
    accessibility: lowest((r) => r.accessibility),
    seo: lowest((r) => r.seo),
    bestPractices: lowest((r) => r.bestPractices),
    fcp: median((r) => r.fcp),
    lcp: median((r) => r.lcp),
    tbt: median((r) => r.tbt),
    cls: median((r) => r.cls),
  }
}

/** The production server with a fresh data folder holding the demo content. */
async function startApp(): Promise<{ url: string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const dataDir = path.join(scratch, 'data')
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }
  // Production never seeds by itself; the demo content goes in first, as `npm run db:seed` does.
  const { username, email, password } = BENCH_USER
  execFileSync(process.execPath, ['db/seed/seed-cli.ts', '--user', `${username}:${email}:${password}`], {
    cwd: root,
    env,
    stdio: 'ignore',
  })
  const child = spawn(process.execPath, ['server/index.ts'], {
    cwd: root,
    env: {
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      CRON_SECRET: randomBytes(24).toString('base64url'),
      // No model is asked here: a closed local port, not the embedded model (ADR 036).
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let errors = ''
  child.stderr?.on('data', (chunk) => {
    errors += chunk
  })
  children.push(child)
  cleanups.push(() => stop(child))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${errors}`)
    if (Date.now() > deadline) throw new Error(`the server did not become ready: ${errors}`)
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The first demo character that is shown to everyone (not behind the age gate). */
async function pickCharacter(appUrl: string): Promise<string> {
  const body = (await (await fetch(`${appUrl}/api/roles?pageSize=20`)).json()) as {
    data: { items: { roleId: string; isAdult: boolean; gated: boolean }[] }
  }
  const role = body.data.items.find((item) => !item.isAdult && !item.gated)
  if (!role) throw new Error('no character outside the age gate in the demo content')
  return role.roleId
}

/** Tokens of the bench's user, fresh for each signed-in run (refresh tokens rotate). */
async function logIn(appUrl: string): Promise<{ token: string; refreshToken: string }> {
  const res = await fetch(`${appUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: BENCH_USER.email, password: BENCH_USER.password }),
  })
  if (!res.ok) throw new Error(`the bench user could not log in: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: { token: string; refreshToken: string } }).data
}

/** The bench user's chat with the character, holding its greeting (no model is asked). */
async function startChat(appUrl: string, roleId: string): Promise<string> {
  const { token } = await logIn(appUrl)
  const res = await fetch(`${appUrl}/api/createSession`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ roleId, locale: 'en' }),
  })
  if (!res.ok) throw new Error(`no chat could be started: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: { id: string } }).data.id
}

/** Puts fresh tokens of the bench user in the app origin's storage, as the login page does. */
async function signIn(port: number, appUrl: string) {
  const tokens = await logIn(appUrl)
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`)
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext())
    const page = await context.newPage()
    await page.goto(`${appUrl}/robots.txt`)
    await page.evaluate((t) => {
      window.localStorage.setItem('token', t.token)
      window.localStorage.setItem('refreshToken', t.refreshToken)
    }, tokens)
    await page.close()
  } finally {
    // Disconnects only: the browser goes on serving Lighthouse.
    await browser.close()
  }
}

async function startBaselineServer(): Promise<{ url: string }> {
  const server: Server = createServer((request, response) => {
    if (request.url !== '/') {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' })
    response.end(BASELINE_HTML)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => server.close(resolve)))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

/** One headless Chromium for every run; Lighthouse drives it through its debugging port. */
async function startChrome(): Promise<{ port: number; version: string; lighthouseVersion: string }> {
  const child = spawn(
    chromePath as string,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--remote-debugging-port=0',
      `--user-data-dir=${path.join(scratch, 'chrome')}`,
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  children.push(child)
  cleanups.push(() => stop(child))
  const port = await new Promise<number>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${output}`)), 30_000)
    child.stderr?.on('data', (chunk) => {
      output += chunk
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    })
    child.once('exit', () => reject(new Error(`Chromium exited: ${output}`)))
  })
  const info = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { Browser: string }
  const { version: lighthouseVersion } = (await import('lighthouse/package.json', { with: { type: 'json' } }))
    .default as { version: string }
  return { port, version: info.Browser, lighthouseVersion }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function printTable(table: { caption: string; columns: string[]; rows: (string | number)[][] }) {
  console.log(`\n${table.caption}\n`)
  console.log(`| ${table.columns.join(' | ')} |`)
  console.log(`| ${table.columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`)
  for (const row of table.rows) console.log(`| ${row.join(' | ')} |`)
}
