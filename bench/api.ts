// API and server-rendering throughput of the production build over a large database: 100,000
// roles, 1,000 users, 10,000 chat sessions and 1,000,000 messages (BENCH_QUICK=1: a tenth or less).
// Each scenario is loaded with autocannon over loopback, then the same bytes are served by a bare
// Fastify route in a separate baseline process (API) or a minimal React server render (SSR), in the
// same run: the ratio is what the product's routing, checks, database and rendering cost on top.
// `npm run bench:api` (after `npm run build`; DATABASE_URL = an empty PostgreSQL database to use it;
// BENCH_PAGES_ONLY=1 skips the API calls, for work on the pages).
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { BENCH_PASSWORD, benchEmail } from './lib/seed-large.ts'

const QUICK = process.env.BENCH_QUICK === '1'
const SIZES = QUICK
  ? { roles: 10_000, users: 100, sessions: 1_000, messagesPerSession: 20 }
  : { roles: 100_000, users: 1_000, sessions: 10_000, messagesPerSession: 100 }
const DURATION_S = Number(process.env.DURATION_S ?? (QUICK ? 2 : 3))
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10)
const PAGES_ONLY = process.env.BENCH_PAGES_ONLY === '1'
const root = path.resolve(import.meta.dirname, '..')

/** Child: migrate and seed the database the app will open. */
async function runSeed() {
  const { openDatabase } = await import('#db/client.ts')
  const { seedSyntheticRoles } = await import('#server/modules/catalogue/demo-content.ts')
  const { seedBenchChats, seedBenchUsers } = await import('./lib/seed-large.ts')
  const database = openDatabase({
    url: process.env.DATABASE_URL,
    dataDir: process.env.DATA_DIR ?? '',
    // Seeding a million messages takes longer than an app statement may.
    queryTimeoutMs: 0,
  })
  await database.migrate()
  const started = performance.now()
  await seedSyntheticRoles(database.db, SIZES.roles)
  await seedBenchUsers(database.db, SIZES.users)
  const { firstUserSessions } = await seedBenchChats(database.db, {
    sessions: SIZES.sessions,
    messagesPerSession: SIZES.messagesPerSession,
  })
  await database.analyze()
  await database.close()
  process.send?.({
    seconds: (performance.now() - started) / 1000,
    sessionId: firstUserSessions[0],
    database: database.kind,
  })
}

/** Child: the baseline server. POST /__body sets what GET|POST /bare answers; GET /ssr is a minimal React render. */
async function runBaseline() {
  const { default: Fastify } = await import('fastify')
  const { createElement: h } = await import('react')
  const { renderToString } = await import('react-dom/server')
  const app = Fastify({ logger: false, bodyLimit: 20 * 1024 * 1024 })
  let body: Buffer = Buffer.from('{}')
  let type = 'application/json'
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, payload, done) => done(null, payload))
  app.post('/__body', async (request) => {
    body = request.body as Buffer
    type = String(request.headers['x-type'] ?? 'application/json')
    return 'ok'
  })
  const bare = async (_request: unknown, reply: import('fastify').FastifyReply) => reply.type(type).send(body)
  app.get('/bare', bare)
  app.post('/bare', bare)
  app.get('/ssr', async (_request, reply) => {
    const page = h(
      'html',
      { lang: 'en' },
      h('head', null, h('meta', { charSet: 'utf-8' }), h('title', null, 'Minimal')),
      h('body', null, h('main', null, h('h1', null, 'Hello'), h('p', null, 'A minimal server render.'))),
    )
    return reply.type('text/html; charset=utf-8').send(`<!DOCTYPE html>${renderToString(page)}`)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

function once<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T))
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before answering`)))
  })
}

async function waitReady(url: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`the app did not get ready at ${url}`)
}

type Load = {
  rps: number
  p50: number
  p95: number
  p99: number
  errors: number
  bytes: number
  /** CPU time of the server process per request (ms), when `cpuOf` was given; NaN otherwise. */
  cpuMs: number
}

/** User + system CPU time of a process so far, in ms (Linux /proc; NaN elsewhere). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0

async function load(options: {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  seconds?: number
  /** The server's process: its CPU time per request is measured too (less noisy than rates on a busy machine). */
  cpuOf?: number | undefined
}): Promise<Load> {
  const run = (seconds: number, record: boolean) =>
    new Promise<Load>((resolve, reject) => {
      const times: number[] = []
      let bytes = 0
      const cpuBefore = processCpuMs(options.cpuOf)
      const instance = autocannon(
        {
          url: options.url,
          method: options.method ?? 'GET',
          headers: options.headers,
          body: options.body,
          connections: CONNECTIONS,
          duration: seconds,
        },
        (err, result) => {
          if (err) return reject(err)
          times.sort((a, b) => a - b)
          resolve({
            rps: result.requests.average,
            p50: round2(quantile(times, 0.5)),
            p95: round2(quantile(times, 0.95)),
            p99: round2(quantile(times, 0.99)),
            errors: result.errors + result.timeouts + result.non2xx,
            bytes,
            cpuMs: round2((processCpuMs(options.cpuOf) - cpuBefore) / Math.max(1, result.requests.total)),
          })
        },
      )
      instance.on('response', (_client, _status, resBytes, responseTime) => {
        if (record) times.push(responseTime)
        bytes = resBytes
      })
    })
  await run(1, false)
  return run(options.seconds ?? DURATION_S, true)
}

async function runBench() {
  if (!existsSync(path.join(root, 'build', 'server')) || !existsSync(path.join(root, 'build', 'client'))) {
    console.error('bench:api measures the production build: run `npm run build` first.')
    process.exit(1)
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-bench-api-'))
  const env = { ...process.env, DATA_DIR: dataDir }

  console.log(
    `seeding ${SIZES.roles} roles, ${SIZES.users} users, ${SIZES.sessions} sessions, ${SIZES.sessions * SIZES.messagesPerSession} messages...`,
  )
  const seeder = fork(import.meta.filename, ['--seed'], { env, stdio: 'inherit' })
  const seeded = await once<{ seconds: number; sessionId: string; database: string }>(seeder)
  console.log(`seeded ${seeded.database} in ${seeded.seconds.toFixed(1)} s`)

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const app = spawn(process.execPath, [path.join(root, 'server', 'index.ts')], {
    cwd: root,
    env: {
      ...env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      JWT_SECRET: 'bench-'.repeat(10),
      CRON_SECRET: 'bench-cron-secret-0123456789',
      LOG_LEVEL: 'warn',
      // No model is asked here: a closed local port, not the embedded model (ADR 036).
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const baseline = fork(import.meta.filename, ['--baseline'], { stdio: 'inherit' })
  // Whatever happens here, the children go too.
  process.on('exit', () => {
    app.kill('SIGKILL')
    baseline.kill('SIGKILL')
  })
  const basePort = (await once<{ port: number }>(baseline)).port
  const baseUrl = `http://127.0.0.1:${basePort}`
  try {
    await waitReady(url)

    const login = await fetch(`${url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: benchEmail(1), password: BENCH_PASSWORD }),
    })
    const token = ((await login.json()) as { data?: { token?: string } }).data?.token
    if (!token) throw new Error(`login failed: ${login.status}`)
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

    const list = (await (await fetch(`${url}/api/roles?sort=popularity&pageSize=24`)).json()) as {
      data: { total: number; items: { roleId: string; isAdult: boolean }[] }
    }
    const role = list.data.items.find((r) => !r.isAdult) ?? list.data.items[0]
    if (!role) throw new Error('no roles listed')
    const middle = Math.max(1, Math.floor(list.data.total / 24 / 2))

    type Scenario = {
      name: string
      path: string
      method?: 'GET' | 'POST'
      body?: string
      headers?: Record<string, string>
    }
    const api: Scenario[] = [
      { name: 'roles: popularity, page 1', path: '/api/roles?sort=popularity' },
      { name: 'roles: newest, page 1', path: '/api/roles?sort=newest' },
      { name: 'roles: rating, page 1', path: '/api/roles?sort=rating' },
      { name: 'roles: tag filter', path: '/api/roles?tags=fantasy' },
      { name: 'roles: search', path: '/api/roles?q=kari' },
      { name: `roles: deep page ${middle}`, path: `/api/roles?sort=popularity&page=${middle}` },
      { name: 'role page', path: `/api/role?roleId=${role.roleId}` },
      { name: 'tags', path: '/api/tags' },
      { name: 'models', path: '/api/models' },
      { name: 'sessions list', path: '/api/sessions', method: 'POST', body: '{}', headers: auth },
      {
        name: 'messages page (newest 30)',
        path: '/api/messages',
        method: 'POST',
        body: JSON.stringify({ sessionId: seeded.sessionId, limit: 30 }),
        headers: auth,
      },
    ]
    const apiRows: (string | number)[][] = []
    for (const s of PAGES_ONLY ? [] : api) {
      const init = { method: s.method ?? 'GET', headers: s.headers, body: s.body }
      const probe = await fetch(`${url}${s.path}`, init)
      const bytes = Buffer.from(await probe.arrayBuffer())
      if (!probe.ok) throw new Error(`${s.name}: ${probe.status} ${bytes.toString().slice(0, 200)}`)
      await fetch(`${baseUrl}/__body`, { method: 'POST', body: bytes, headers: { 'x-type': 'application/json' } })
      const measured = await load({ url: `${url}${s.path}`, method: s.method, headers: s.headers, body: s.body })
      const bare = await load({ url: `${baseUrl}/bare`, method: s.method, headers: s.headers, body: s.body })
      const row = [
        s.name,
        Math.round(measured.rps),
        measured.p50,
        measured.p95,
        measured.p99,
        Math.round(bare.rps),
        `${(bare.rps / Math.max(1, measured.rps)).toFixed(1)}×`,
        measured.errors,
      ]
      console.log(row.join(' | '))
      apiRows.push(row)
    }

    const pages = ['/', '/characters', `/characters/${role.roleId}`, '/blog/how-memory-and-diamonds-work', '/subscribe']
    // Each page three ways, interleaved: rendered anew (a cookie the render cache does not know
    // makes the request personal to it, ADR 062), from the render cache (what an anonymous
    // visitor gets), and robots.txt through the same server: the static file of the same stack.
    const ssrRows: (string | number)[][] = []
    const cachedRows: (string | number)[][] = []
    for (const locale of ['en', 'ar']) {
      for (const page of pages) {
        const pathname = locale === 'en' ? page : `/${locale}${page === '/' ? '' : page}`
        const anonymous = { cookie: `lang=${locale}`, 'accept-language': locale }
        const personal = { cookie: `lang=${locale}; bench=uncached`, 'accept-language': locale }
        const probe = await fetch(`${url}${pathname}`, { headers: personal, redirect: 'manual' })
        if (probe.status !== 200) throw new Error(`${pathname}: ${probe.status}`)
        if (probe.headers.get('x-render-cache')) throw new Error(`${pathname}: a personal request came from the cache`)
        const html = await probe.text()
        await fetch(`${url}${pathname}`, { headers: anonymous })
        const cachedProbe = await fetch(`${url}${pathname}`, { headers: anonymous })
        if (cachedProbe.headers.get('x-render-cache') !== 'hit')
          throw new Error(`${pathname}: not from the render cache`)
        const measured = await load({ url: `${url}${pathname}`, headers: personal, cpuOf: app.pid })
        const minimal = await load({ url: `${baseUrl}/ssr` })
        const cached = await load({ url: `${url}${pathname}`, headers: anonymous, cpuOf: app.pid })
        const robots = await load({ url: `${url}/robots.txt`, headers: anonymous, cpuOf: app.pid })
        const row = [
          pathname,
          `${(Buffer.byteLength(html) / 1024).toFixed(1)} KiB`,
          Math.round(measured.rps),
          measured.p50,
          measured.p95,
          measured.p99,
          Math.round(minimal.rps),
          `${(minimal.rps / Math.max(1, measured.rps)).toFixed(1)}×`,
          measured.errors,
        ]
        const cachedRow = [
          pathname,
          Math.round(cached.rps),
          cached.p50,
          cached.p95,
          cached.p99,
          Math.round(robots.rps),
          robots.p95,
          `${round2(cached.rps / Math.max(1, robots.rps))}×`,
          cached.cpuMs,
          robots.cpuMs,
          measured.cpuMs,
          cached.errors + robots.errors,
        ]
        console.log(row.join(' | '))
        console.log(`  cached: ${cachedRow.join(' | ')}`)
        ssrRows.push(row)
        cachedRows.push(cachedRow)
      }
    }
    const ratios = cachedRows.map((r) => Number.parseFloat(String(r[7])))
    const cachedP95s = cachedRows.map((r) => Number(r[3]))
    const dataPageRps = Number(ssrRows.find((r) => r[0] === '/characters')?.[2] ?? 0)
    const worstRatio = Math.min(...ratios)
    // robots.txt's CPU per request ÷ a cached page's: the rate ratio the CPU alone allows.
    const cpuRatios = cachedRows.map((r) => Number(r[9]) / Number(r[8]))
    const worstCpuRatio = round2(Math.min(...cpuRatios))
    const worstP95 = Math.max(...cachedP95s)

    const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`
    const result = {
      name: 'api',
      title: 'API and server rendering under load',
      date: new Date().toISOString(),
      machine,
      notes: [
        `Production build (\`node server/index.ts\`, \`NODE_ENV=production\`) on ${seeded.database === 'postgres' ? 'PostgreSQL' : 'PGlite'}, seeded with ${SIZES.roles.toLocaleString('en')} roles, ${SIZES.users.toLocaleString('en')} users, ${SIZES.sessions.toLocaleString('en')} sessions and ${(SIZES.sessions * SIZES.messagesPerSession).toLocaleString('en')} messages.`,
        `autocannon over loopback, ${CONNECTIONS} connections, ${DURATION_S} s per scenario after 1 s of warm-up; latencies are per request as the client saw them (ms).`,
        'API baseline: a bare Fastify route in its own process returning the very same bytes. SSR baseline: a one-heading React document rendered with `renderToString` by Fastify in that process. "× slower" = baseline req/s ÷ product req/s.',
        'Render cache (ADR 062): "rendered anew" requests carry a cookie the cache does not know (as a personal request would), so every one is rendered; "from the render cache" requests are an anonymous visitor\'s (only the language cookie). robots.txt is the same server\'s static file, measured right after each page.',
        `Load average at the end of the run: ${loadavg()
          .map((n) => n.toFixed(2))
          .join(', ')} (1, 5, 15 min).`,
        'Client and server share the 2 cores, so the absolute req/s are conservative; compare ratios between runs.',
      ],
      tables: [
        {
          caption: 'API',
          columns: ['call', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'bare route req/s', '× slower than bare', 'errors'],
          rows: apiRows,
        },
        {
          caption: 'Server-rendered pages',
          columns: [
            'page',
            'HTML',
            'req/s',
            'p50 ms',
            'p95 ms',
            'p99 ms',
            'minimal SSR req/s',
            '× slower than minimal',
            'errors',
          ],
          rows: ssrRows,
        },
        {
          caption: 'Server-rendered pages from the render cache (anonymous visitor)',
          columns: [
            'page',
            'req/s',
            'p50 ms',
            'p95 ms',
            'p99 ms',
            'robots.txt req/s',
            'robots.txt p95 ms',
            'cached ÷ robots.txt',
            'server CPU ms/req cached',
            'robots.txt',
            'rendered anew',
            'errors',
          ],
          rows: cachedRows,
        },
      ],
      budgets: [
        {
          name: 'no errors under load (API and pages)',
          limit: '0',
          value: String([...apiRows, ...ssrRows, ...cachedRows].reduce((n, r) => n + Number(r.at(-1)), 0)),
          met: [...apiRows, ...ssrRows, ...cachedRows].every((r) => Number(r.at(-1)) === 0),
        },
        {
          name: 'anonymous pages from the render cache: rate ÷ robots.txt of the same server (worst page)',
          limit: '≥ 0.25×',
          value: `${worstRatio}×`,
          met: worstRatio >= 0.25,
          noisy: true,
        },
        {
          name: 'anonymous pages from the render cache: robots.txt CPU per request ÷ cached page CPU per request (worst page)',
          limit: '≥ 0.25×',
          value: `${worstCpuRatio}×`,
          met: worstCpuRatio >= 0.25,
          noisy: true,
        },
        {
          name: 'anonymous pages from the render cache: p95 (worst page)',
          limit: '≤ 10 ms',
          value: `${worstP95} ms`,
          met: worstP95 <= 10,
          noisy: true,
        },
        {
          name: 'uncached server rendering of a data page (/characters)',
          limit: '≥ 500 req/s',
          value: `${Math.round(dataPageRps)} req/s`,
          met: dataPageRps >= 500,
          noisy: true,
        },
      ],
    }
    const outDir = path.join(import.meta.dirname, 'results')
    mkdirSync(outDir, { recursive: true })
    writeFileSync(path.join(outDir, 'api.json'), `${JSON.stringify(result, null, 2)}\n`)
    console.log(`written ${path.join(outDir, 'api.json')}`)
  } finally {
    app.kill('SIGTERM')
    baseline.kill('SIGTERM')
  }
}

if (process.argv.includes('--baseline')) await runBaseline()
else if (process.argv.includes('--seed')) await runSeed()
else await runBench()
