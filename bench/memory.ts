// The server's memory footprint (issue #24 item 2): `npm run bench:memory` after `npm run build`.
//
// 1. What each part holds, each in a fresh process of its own, against a bare Node process started
//    the same way in the same run (the baseline): PGlite opened on the demo database, the server
//    rendering bundle, every locale's JSON and the tokenizer.
// 2. The production server (`node server/index.ts`, NODE_ENV=production, a model URL that answers
//    nothing so no embedded model loads) on a data folder seeded with the demo content
//    (`db/seed/seed-cli.ts`): RSS and its peak after start, idle; then after BENCH_MEMORY_LOAD_S
//    (default 60) of page requests at 10 connections (home, character list, a character, an article
//    and pricing, English and Arabic). bench/lib/memory-probe.ts, preloaded, reports the JS heap,
//    PGlite's WebAssembly memory and the rest on SIGUSR2.
// 3. The 200-stream chat soak (scripts/soak.ts, SOAK_SECONDS=BENCH_MEMORY_SOAK_S, default 120;
//    0 skips it): the highest RSS it sampled.
// Writes bench/results/memory.json (bench/lib/report.ts). BENCH_QUICK=1: 10 s of load, a 60 s soak.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'

const root = path.resolve(import.meta.dirname, '..')
const QUICK = process.env.BENCH_QUICK === '1'
const LOAD_S = Number(process.env.BENCH_MEMORY_LOAD_S ?? (QUICK ? 10 : 60))
const SOAK_S = Number(process.env.BENCH_MEMORY_SOAK_S ?? (QUICK ? 60 : 120))
const IDLE_S = QUICK ? 30 : 60
const BUDGETS = { idle: 250, pages: 300, soak: 400 }
/** The Node flags `npm start` gives the server (package.json), unless BENCH_MEMORY_NODE_OPTIONS says others. */
function startFlags(): string {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  return /node ((?:--\S+ )*)server\/index\.ts/.exec(pkg.scripts.start ?? '')?.[1]?.trim() ?? ''
}
const SERVER_FLAGS = (process.env.BENCH_MEMORY_NODE_OPTIONS ?? startFlags()).split(' ').filter(Boolean)
const MiB = 1024 * 1024
const mib = (bytes: number) => Math.round(bytes / MiB)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Probe = {
  usage: NodeJS.MemoryUsage
  status: Record<string, number>
  heapSpaces: { name: string; used: number; size: number }[]
  wasm: number[]
}

// --- 1. one part in a process of its own ---------------------------------------------------------

function statusMiB(pid: number | 'self' = 'self') {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0)
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 }
}

/** Prints what loading one part added to this process: RSS, JS heap (after GC), external memory. */
async function measureComponent(name: string, dataDir: string) {
  const gc = globalThis.gc as () => void
  const snapshot = () => {
    gc()
    gc()
    const usage = process.memoryUsage()
    return { rss: statusMiB().rss, heap: usage.heapUsed / MiB, external: usage.external / MiB }
  }
  const before = snapshot()
  let keep: unknown
  if (name === 'pglite') {
    const { openDatabase } = await import('#db/client.ts')
    const database = openDatabase({ dataDir })
    const { sql } = await import('drizzle-orm')
    await database.db.execute(sql`select count(*) from roles`)
    await database.db.execute(sql`select * from role_translations`)
    // V8 optimises PostgreSQL's hottest functions in the background for a few seconds after start.
    await sleep(8000)
    keep = database
  } else if (name === 'ssr-bundle') {
    keep = await import(path.join(root, 'build', 'server', 'index.js'))
  } else if (name === 'locales') {
    const dir = path.join(root, 'locales')
    keep = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) =>
        readdirSync(path.join(dir, entry.name))
          .filter((file) => file.endsWith('.json'))
          .map((file) => JSON.parse(readFileSync(path.join(dir, entry.name, file), 'utf8'))),
      )
  } else if (name === 'tokenizer') {
    const { countTokens, tokenizerReady } = await import('#server/modules/models/tokens.ts')
    await tokenizerReady()
    const words = readFileSync(path.join(root, 'content', 'blog', 'how-memory-and-diamonds-work', 'en.md'), 'utf8')
    keep = countTokens(words.repeat(20))
  } else if (name !== 'bare') {
    throw new Error(`unknown component ${name}`)
  }
  const after = snapshot()
  const hwm = statusMiB().hwm
  process.stdout.write(
    `${JSON.stringify({ name, rss: after.rss - before.rss, heap: after.heap - before.heap, external: after.external - before.external, hwm, total: after.rss, kept: keep !== undefined })}\n`,
  )
  process.exit(0)
}

async function component(name: string, dataDir: string) {
  const child = spawn(
    process.execPath,
    ['--expose-gc', path.join(import.meta.dirname, 'memory.ts'), '--component', name, dataDir],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk
  })
  await new Promise((resolve) => child.on('exit', resolve))
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as {
    name: string
    rss: number
    heap: number
    external: number
    hwm: number
    total: number
  }
}

// --- 2. the production server ---------------------------------------------------------------------

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })

function serverEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    // Nothing answers there: the server starts without an embedded model (as it would with a
    // remote provider) and logs it unreachable.
    LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    JWT_SECRET: 'memory-bench-'.repeat(4),
    CRON_SECRET: 'memory-bench-cron-secret-0123456',
    LOG_LEVEL: 'error',
    MEMORY_PROBE_FILE: path.join(dataDir, 'probe.json'),
    // glibc's number of malloc arenas, when the run sets it (compared in docs/performance.md).
    ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
  }
}

async function seed(dataDir: string) {
  const child = spawn(process.execPath, [path.join(root, 'db', 'seed', 'seed-cli.ts')], {
    cwd: root,
    env: { ...serverEnv(dataDir, 1), NODE_ENV: 'development' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`seeding failed (${code})`)
}

async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string; startMs: number }> {
  // BENCH_MEMORY_PORT: a fixed port (a shared machine hands each user a range); else any free one.
  const port = process.env.BENCH_MEMORY_PORT ? Number(process.env.BENCH_MEMORY_PORT) : await freePort()
  const url = `http://127.0.0.1:${port}`
  const started = Date.now()
  const child = spawn(
    process.execPath,
    [
      ...SERVER_FLAGS,
      '--import',
      path.join(import.meta.dirname, 'lib', 'memory-probe.ts'),
      path.join(root, 'server', 'index.ts'),
    ],
    { cwd: root, env: serverEnv(dataDir, port), stdio: ['ignore', 'ignore', 'inherit'] },
  )
  process.on('exit', () => child.kill('SIGKILL'))
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break
    } catch {}
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`)
    if (i > 900) throw new Error('the server did not get ready')
    await sleep(200)
  }
  return { child, url, startMs: Date.now() - started }
}

async function probe(child: ChildProcess, dataDir: string): Promise<Probe> {
  const file = path.join(dataDir, 'probe.json')
  rmSync(file, { force: true })
  child.kill('SIGUSR2')
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100)
  await sleep(100)
  return JSON.parse(readFileSync(file, 'utf8')) as Probe
}

/** RSS every second while `during` runs; the highest and the last sample. */
async function sampled<T>(pid: number, during: Promise<T>) {
  const samples: number[] = []
  const timer = setInterval(() => samples.push(statusMiB(pid).rss), 1000)
  const value = await during
  clearInterval(timer)
  samples.push(statusMiB(pid).rss)
  return { value, peak: Math.max(...samples), last: samples.at(-1) ?? 0 }
}

async function pageLoad(url: string, seconds: number) {
  const list = (await (await fetch(`${url}/api/roles?sort=popularity&pageSize=24`)).json()) as {
    data: { items: { roleId: string; isAdult: boolean }[] }
  }
  const role = list.data.items.find((item) => !item.isAdult)
  if (!role) throw new Error('no demo character')
  const pages = ['/', '/characters', `/characters/${role.roleId}`, '/blog/how-memory-and-diamonds-work', '/subscribe']
  const requests = ['en', 'ar'].flatMap((locale) =>
    pages.map((page) => ({
      path: locale === 'en' ? page : `/${locale}${page === '/' ? '' : page}`,
      headers: { cookie: `lang=${locale}`, 'accept-language': locale },
    })),
  )
  return await new Promise<{ requests: number; rps: number; errors: number }>((resolve, reject) => {
    autocannon({ url, connections: 10, duration: seconds, requests }, (err, result) => {
      if (err) return reject(err)
      resolve({
        requests: result.requests.total,
        rps: Math.round(result.requests.average),
        errors: result.errors + result.timeouts + result.non2xx,
      })
    })
  })
}

function breakdown(p: Probe) {
  const wasm = p.wasm.reduce((a, b) => a + b, 0)
  const rss = p.status.VmRSS ?? 0
  return {
    rss: Math.round(rss / 1024),
    heapUsed: mib(p.usage.heapUsed),
    heapTotal: mib(p.usage.heapTotal),
    newSpace: mib(p.heapSpaces.find((s) => s.name === 'new_space')?.size ?? 0),
    wasm: mib(wasm),
    otherExternal: mib(p.usage.external - wasm),
    rest: Math.round(rss / 1024 - p.usage.heapTotal / MiB - p.usage.external / MiB),
  }
}

// --- 3. the chat soak -----------------------------------------------------------------------------

async function soak(seconds: number) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'soak.ts')], {
    cwd: root,
    env: {
      ...process.env,
      SOAK_SECONDS: String(seconds),
      SOAK_CHATS: '200',
      SOAK_SERVER_FLAGS: SERVER_FLAGS.join(' '),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  const result = JSON.parse(readFileSync(path.join(root, 'bench', 'results', 'soak.json'), 'utf8')) as {
    minutes: { rssMiB: number[][]; chats: number }[]
  }
  const samples = result.minutes.flatMap((m) => m.rssMiB[0] ?? [])
  return {
    passed: code === 0,
    peak: Math.round(Math.max(...samples)),
    last: Math.round(samples.at(-1) ?? 0),
    replies: result.minutes.reduce((n, m) => n + m.chats, 0),
  }
}

// --- the run --------------------------------------------------------------------------------------

async function runBench() {
  if (!existsSync(path.join(root, 'build', 'server', 'index.js'))) throw new Error('run `npm run build` first')
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, load ${load}`
  // BENCH_MEMORY_DATA_DIR: a data folder already seeded (comparing server flags); kept afterwards.
  const givenDir = process.env.BENCH_MEMORY_DATA_DIR
  const dataDir = givenDir ?? mkdtempSync(path.join(tmpdir(), 'rp-memory-'))
  try {
    console.log('seeding the demo content...')
    await seed(dataDir)

    const parts: Awaited<ReturnType<typeof component>>[] = []
    const names =
      process.env.BENCH_MEMORY_PARTS === '0' ? ['bare'] : ['bare', 'pglite', 'ssr-bundle', 'locales', 'tokenizer']
    for (const name of names) {
      const part = await component(name, path.join(dataDir))
      console.log(
        `${name}: +${part.rss.toFixed(0)} MiB RSS, +${part.heap.toFixed(1)} MiB heap, peak ${part.hwm.toFixed(0)}`,
      )
      parts.push(part)
    }
    const bare = parts[0]?.total ?? 1

    console.log('starting the server...')
    const server = await startServer(dataDir)
    const pid = server.child.pid ?? 0
    const startPeak = statusMiB(pid).hwm
    const early = breakdown(await probe(server.child, dataDir))
    await sleep(IDLE_S * 1000)
    const idle = breakdown(await probe(server.child, dataDir))
    console.log('just started', early, 'idle', idle)
    console.log(`page load for ${LOAD_S} s...`)
    const pages = await sampled(pid, pageLoad(server.url, LOAD_S))
    const afterPages = breakdown(await probe(server.child, dataDir))
    console.log('after pages', afterPages, pages)
    const pagePeak = statusMiB(pid).hwm
    server.child.kill('SIGTERM')
    await new Promise((resolve) => server.child.on('exit', resolve))

    const chat = SOAK_S > 0 ? await soak(SOAK_S) : undefined

    const ratio = (n: number) => `${(n / bare).toFixed(1)}×`
    const result = {
      name: 'memory',
      title: 'Memory footprint',
      date: new Date().toISOString(),
      machine,
      notes: [
        `Production build (NODE_ENV=production) on PGlite with the demo content (db/seed/seed-cli.ts), no embedded model. Baseline: a bare \`node\` process started the same way in the same run (${bare.toFixed(0)} MiB RSS); ratios are RSS ÷ that.`,
        `Server flags: ${SERVER_FLAGS.join(' ') || 'none'}${process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}. Idle: ${IDLE_S} s after /readyz answered (V8 shrinks its young generation once allocation stops) (start took ${(server.startMs / 1000).toFixed(1)} s). Page load: autocannon, 10 connections, ${LOAD_S} s over home, character list, a character, an article and pricing in English and Arabic. Soak: scripts/soak.ts with 200 concurrent chats for ${SOAK_S} s (its server runs NODE_ENV=test), RSS sampled every 2 s.`,
        'Parts: each loaded alone into a fresh process; what it added to RSS and to the JS heap after a full GC. PGlite: opened on the seeded database, two queries, 8 s for V8 to finish optimising.',
      ],
      tables: [
        {
          caption: 'Server RSS (MiB)',
          columns: [
            'phase',
            'RSS',
            '÷ bare node',
            'peak (VmHWM)',
            'JS heap used / total',
            'new space',
            'PGlite WebAssembly',
            'other external',
            'rest (code, native)',
          ],
          rows: [
            [
              'just started',
              early.rss,
              ratio(early.rss),
              '',
              `${early.heapUsed} / ${early.heapTotal}`,
              early.newSpace,
              early.wasm,
              early.otherExternal,
              early.rest,
            ],
            [
              `idle ${IDLE_S} s after start`,
              idle.rss,
              ratio(idle.rss),
              Math.round(startPeak),
              `${idle.heapUsed} / ${idle.heapTotal}`,
              idle.newSpace,
              idle.wasm,
              idle.otherExternal,
              idle.rest,
            ],
            [
              `after ${LOAD_S} s of pages (${pages.value.rps} req/s, ${pages.value.errors} errors; peak during ${Math.round(pages.peak)})`,
              afterPages.rss,
              ratio(afterPages.rss),
              Math.round(pagePeak),
              `${afterPages.heapUsed} / ${afterPages.heapTotal}`,
              afterPages.newSpace,
              afterPages.wasm,
              afterPages.otherExternal,
              afterPages.rest,
            ],
            ...(chat
              ? [
                  [
                    `200-stream soak, ${SOAK_S} s (${chat.replies} replies; last ${chat.last})`,
                    chat.peak,
                    ratio(chat.peak),
                    '',
                    '',
                    '',
                    '',
                    '',
                    '',
                  ],
                ]
              : []),
          ],
        },
        {
          caption: 'What each part adds, loaded alone (MiB)',
          columns: ['part', 'RSS', 'JS heap', 'external', 'process peak'],
          rows: parts
            .slice(1)
            .map((p) => [p.name, Math.round(p.rss), p.heap.toFixed(1), p.external.toFixed(1), Math.round(p.hwm)]),
        },
      ],
      budgets: [
        {
          name: 'idle RSS, demo content (MiB)',
          limit: `≤ ${BUDGETS.idle}`,
          value: String(idle.rss),
          met: idle.rss <= BUDGETS.idle,
          noisy: true,
        },
        {
          name: `RSS during ${LOAD_S} s of pages at 10 connections, peak (MiB)`,
          limit: `≤ ${BUDGETS.pages}`,
          value: String(Math.round(pages.peak)),
          met: pages.peak <= BUDGETS.pages,
          noisy: true,
        },
        ...(chat
          ? [
              {
                name: 'RSS under the 200-stream soak, peak (MiB)',
                limit: `≤ ${BUDGETS.soak}`,
                value: String(chat.peak),
                met: chat.peak <= BUDGETS.soak,
                noisy: true,
              },
            ]
          : []),
      ],
    }
    const outDir = path.join(import.meta.dirname, 'results')
    mkdirSync(outDir, { recursive: true })
    writeFileSync(path.join(outDir, 'memory.json'), `${JSON.stringify(result, null, 2)}\n`)
    for (const b of result.budgets) console.log(`${b.met ? 'met ' : 'MISS'} ${b.name}: ${b.value} (${b.limit})`)
  } finally {
    if (!givenDir) rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--component') await measureComponent(process.argv[3] ?? '', process.argv[4] ?? '')
else await runBench()
