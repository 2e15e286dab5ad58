// What the platform adds to a model's time to first token (issue 24: one stream p50 <= 2 ms and
// p95 <= 5 ms; 20 concurrent streams p95 <= 40 ms; 200 concurrent streams p95 <= 250 ms, with the
// instance's capacity stated; app CPU per message <= 3 ms, storing the reply included), through
// POST /api/chat/stream, and the server's memory per open stream.
// `npm run bench:chat` (DATABASE_URL to use PostgreSQL instead of the embedded PGlite).
//
// The OpenAI API double runs here, in the measuring process, and stamps when it received each
// request and when it wrote the first token; the app runs in a child process (so its memory is its
// own). The baseline, measured in the same run, is the same client streaming straight from the
// double: the platform's overhead is TTFT through the app minus TTFT straight from the model. The
// baseline and the app take turns round by round, so load from other jobs falls on both alike.
import { type ChildProcess, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'

/** `BENCH_CHAT_CONCURRENCY=1` measures one stream only (comparing changes). */
const CONCURRENCY = (process.env.BENCH_CHAT_CONCURRENCY ?? '1,20,200').split(',').map(Number)
const USERS = 200
const FIRST_TOKEN_DELAY_MS = Number(process.env.FIRST_TOKEN_DELAY_MS ?? 50)
const REPLY = 'The keeper nods and lights the lamp for you.'
/** Issue 24's budgets: overhead at one stream (p50, p95), p95 at 20 and 200 at once, CPU per message. */
const BUDGET = { oneP50: 2, oneP95: 5, twentyP95: 40, burstP95: 250, cpuPerSend: 3 }
const QUICK = process.env.BENCH_QUICK === '1'
/** Streams held open to weigh the memory each takes; `BENCH_CHAT_MEMORY=0` skips that part. */
const MEMORY_STREAMS = process.env.BENCH_CHAT_MEMORY === '0' ? [] : [20, 200]
/** Streams measured at each concurrency (at least 3 rounds); one stream gets the most, its p95 is the budget. */
const STREAMS: Record<number, number> = { 1: 300, 20: 200, 200: 600 }

type BenchUser = { token: string; sessionId: string }
type Ready = { type: 'ready'; port: number; users: BenchUser[]; database: string }
type Memory = { type: 'memory'; usage: NodeJS.MemoryUsage }
type Cpu = { type: 'cpu'; usage: NodeJS.CpuUsage }

if (process.argv.includes('--server')) await runServer()
else await runBench()

/** The child: the whole app on a fresh database, a character, and USERS users with a chat each. */
async function runServer() {
  const { openDatabase } = await import('#db/client.ts')
  const { buildApp } = await import('#server/app.ts')
  const { loadConfig } = await import('#server/config.ts')
  const { openKeyValueStore } = await import('#server/lib/key-value-store.ts')
  const { createRole } = await import('#tests/factories/catalogue.ts')
  const { createUser } = await import('#tests/factories/user.ts')

  const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-bench-chat-'))
  const database = openDatabase({ url: process.env.DATABASE_URL, dataDir })
  await database.migrate()
  const app = await buildApp({
    config: loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      JWT_SECRET: 'c'.repeat(48),
      LOG_LEVEL: 'silent',
      MODELS_FILE: process.env.BENCH_MODELS_FILE,
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    }),
    database,
    kv: openKeyValueStore(undefined),
    closeDatabase: true,
    logger: false,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const roleId = await createRole(database.db, {
    name: 'Keeper',
    description: '{{char}} keeps the lighthouse.',
    scenario: '{{user}} knocks at night.',
    firstMessage: 'Who knocks, {{user}}?',
  })
  const users: BenchUser[] = []
  for (let i = 0; i < USERS; i++) {
    const user = await createUser(database.db)
    const token = await app.accessTokens.issue({ userId: user.id })
    const res = await app.inject({
      method: 'POST',
      url: '/api/createSession',
      payload: { roleId },
      headers: { authorization: `Bearer ${token}` },
    })
    users.push({ token, sessionId: res.json().data.id })
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  process.send?.({ type: 'ready', port, users, database: database.kind } satisfies Ready)
  process.on('message', async (message: { type: string }) => {
    if (message.type === 'memory') {
      globalThis.gc?.()
      process.send?.({ type: 'memory', usage: process.memoryUsage() } satisfies Memory)
    }
    if (message.type === 'cpu') process.send?.({ type: 'cpu', usage: process.cpuUsage() } satisfies Cpu)
    if (message.type === 'stop') {
      await app.close()
      process.exit(0)
    }
  })
}

async function runBench() {
  const { startOpenAiApi } = await import('#tests/doubles/openai-api.ts')
  const { parseEvents } = await import('#tests/helpers/chat.ts')
  const api = await startOpenAiApi({ reply: REPLY, firstTokenDelayMs: FIRST_TOKEN_DELAY_MS })
  const modelsFile = path.join(mkdtempSync(path.join(tmpdir(), 'rp-bench-models-')), 'models.json')
  writeFileSync(
    modelsFile,
    JSON.stringify([{ id: 'bench', name: 'Bench', premium: false, contextTokens: 8192, baseUrl: api.baseUrl }]),
  )
  const child = fork(import.meta.filename, ['--server'], {
    // BENCH_CHAT_NODE_OPTIONS='--cpu-prof' profiles the app.
    execArgv: ['--expose-gc', ...(process.env.BENCH_CHAT_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [])],
    env: { ...process.env, BENCH_MODELS_FILE: modelsFile },
    stdio: 'inherit',
  })
  const loadAtStart = loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')
  console.log(`starting the app with ${USERS} users (load average ${loadAtStart})...`)
  const ready = await nextMessage<Ready>(child, 'ready')
  const appUrl = `http://127.0.0.1:${ready.port}/api/chat/stream`
  const now = () => performance.timeOrigin + performance.now()

  let sequence = 0
  /** The double's own stamps of the request whose last message is `text`. */
  function stampsOf(text: string) {
    for (let i = api.requests.length - 1; i >= 0; i--) {
      if (api.requests[i]?.messages.at(-1)?.content === text) return api.timings[i]
    }
    return undefined
  }

  /** Reads a stream until its first token; then to the end, or aborts when `hold` is given. */
  async function firstToken(response: Response, isToken: (chunk: string) => boolean, hold?: Promise<void>) {
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
    if (!reader) throw new Error(`no body (${response.status})`)
    let at = 0
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      if (!at && isToken(buffer)) {
        at = now()
        if (hold) {
          await hold
          await reader.cancel()
          break
        }
      }
    }
    if (!at) throw new Error(`stream ended without a token: ${buffer.slice(0, 200)} … ${buffer.slice(-400)}`)
    return at
  }

  const viaApp = (user: BenchUser) => async (hold?: Promise<void>) => {
    const message = `Knock ${++sequence}`
    const started = now()
    const response = await fetch(appUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      // As the web client does: a request id per send, so a repeat is recognised.
      body: JSON.stringify({ sessionId: user.sessionId, message, requestId: randomUUID() }),
    })
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`)
    const at = await firstToken(response, (text) => parseEvents(text).some((e) => e.event === 'delta'), hold)
    return { started, at, message }
  }

  const direct = async () => {
    const message = `Direct ${++sequence}`
    const started = now()
    const response = await fetch(`${api.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: message }] }),
    })
    const at = await firstToken(response, (text) => /"content":"[^"]/.test(text))
    return { started, at, message }
  }

  type Sample = { ttft: number; model: number; pre: number; post: number }
  /** Per app round: how long the whole burst took to get its first tokens, less the model's own wait (ms). */
  let spans: number[] = []
  async function round(concurrency: number, run: () => ReturnType<typeof direct>, samples: Sample[]) {
    const results = await Promise.all(Array.from({ length: concurrency }, () => run()))
    if (run !== direct) {
      const first = Math.min(...results.map((r) => r.started))
      const last = Math.max(...results.map((r) => r.at))
      spans.push(last - first - FIRST_TOKEN_DELAY_MS)
    }
    for (const r of results) {
      const stamps = stampsOf(r.message)
      if (!stamps?.firstTokenAt) throw new Error(`the double has no stamps for ${r.message}`)
      samples.push({
        ttft: r.at - r.started,
        model: stamps.firstTokenAt - stamps.receivedAt,
        pre: stamps.receivedAt - r.started,
        post: r.at - stamps.firstTokenAt,
      })
    }
  }
  /**
   * The baseline and the app in alternate rounds (which goes first alternates too), so a spell of
   * load from other jobs on the shared machine falls on both alike.
   */
  async function measure(concurrency: number, rounds: number) {
    const base: Sample[] = []
    const app: Sample[] = []
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) await round(concurrency, direct, base)
      await round(concurrency, () => viaApp(nextUser())(), app)
      if (i % 2 === 1) await round(concurrency, direct, base)
    }
    return { base, app }
  }

  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  }
  let userCursor = 0
  const nextUser = () => ready.users[userCursor++ % ready.users.length] as BenchUser

  // Warm-up: JIT, connection pools, the tokenizer, PGlite's caches; one send from every user.
  await measure(1, QUICK ? 10 : USERS)

  const rows: Record<string, number | string>[] = []
  for (const concurrency of CONCURRENCY) {
    const streams = QUICK ? 20 : (STREAMS[concurrency] ?? 100)
    const rounds = Math.max(3, Math.ceil(streams / concurrency))
    child.send({ type: 'cpu' })
    const cpuBefore = (await nextMessage<Cpu>(child, 'cpu')).usage
    spans = []
    const { base, app } = await measure(concurrency, rounds)
    child.send({ type: 'cpu' })
    const cpuAfter = (await nextMessage<Cpu>(child, 'cpu')).usage
    // The app's own CPU time per send (user + system, the whole stream and its storing): what
    // queues when many start at once, and unlike wall-clock time hardly moved by other jobs.
    const cpuPerSend =
      (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000 / Math.max(1, app.length)
    const baseOverhead = base.map((s) => s.ttft - s.model)
    const appOverhead = app.map((s) => s.ttft - s.model)
    const p50 = quantile(appOverhead, 0.5) - quantile(baseOverhead, 0.5)
    const p95 = quantile(appOverhead, 0.95) - quantile(baseOverhead, 0.95)
    rows.push({
      concurrency,
      streams: app.length,
      cpuPerSend,
      // Streams brought to their first token per second of a burst (the model's own wait taken out).
      startsPerSecond: (concurrency * 1000) / Math.max(1, quantile(spans, 0.5)),
      modelTtftP50: quantile(
        app.map((s) => s.model),
        0.5,
      ),
      directTtftP50: quantile(
        base.map((s) => s.ttft),
        0.5,
      ),
      appTtftP50: quantile(
        app.map((s) => s.ttft),
        0.5,
      ),
      appTtftP95: quantile(
        app.map((s) => s.ttft),
        0.95,
      ),
      overheadP50: p50,
      overheadP95: p95,
      beforeModelP50: quantile(
        app.map((s) => s.pre),
        0.5,
      ),
      afterModelP50: quantile(
        app.map((s) => s.post),
        0.5,
      ),
      ratioP50:
        quantile(
          app.map((s) => s.ttft),
          0.5,
        ) /
        quantile(
          base.map((s) => s.ttft),
          0.5,
        ),
    })
  }

  // Memory: hold N streams open past their first token and compare with the idle server.
  const memoryRows: Record<string, number>[] = []
  api.tokenDelayMs = 60_000
  for (const concurrency of MEMORY_STREAMS) {
    child.send({ type: 'memory' })
    const idle = (await nextMessage<Memory>(child, 'memory')).usage
    let release: () => void = () => {}
    const hold = new Promise<void>((resolve) => {
      release = resolve
    })
    let allOpen: () => void = () => {}
    const everyoneOpen = new Promise<void>((resolve) => {
      allOpen = resolve
    })
    const streams = Array.from({ length: concurrency }, () => viaApp(nextUser())(hold).catch((error: unknown) => error))
    // Each stream resolves its first token before waiting on `hold`; poll the double to know when.
    const waitOpen = setInterval(() => {
      const open = api.timings.filter((t) => t.firstTokenAt && !t.doneAt && !t.closedEarly).length
      if (open >= concurrency) allOpen()
    }, 20)
    await everyoneOpen
    clearInterval(waitOpen)
    await new Promise((r) => setTimeout(r, 200))
    child.send({ type: 'memory' })
    const open = (await nextMessage<Memory>(child, 'memory')).usage
    release()
    await Promise.all(streams)
    // The streams were stopped by their clients: wait until the app has stored them.
    await new Promise((r) => setTimeout(r, 500))
    memoryRows.push({
      concurrency,
      rssPerStreamKiB: (open.rss - idle.rss) / concurrency / 1024,
      heapPerStreamKiB: (open.heapUsed - idle.heapUsed) / concurrency / 1024,
    })
  }
  api.tokenDelayMs = 0

  child.send({ type: 'stop' })
  await new Promise((resolve) => child.on('exit', resolve))
  await api.close()

  const fmt = (n: unknown) => (typeof n === 'number' ? n.toFixed(2) : String(n))
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ${ready.database}, load average ${loadAtStart} at the start and ${load} at the end (1 / 5 / 15 min)`
  const byConcurrency = (n: number) => rows.find((r) => r.concurrency === n)
  const single = byConcurrency(1)
  const twenty = byConcurrency(20)
  const burst = byConcurrency(200)
  const cpuValues = rows.map((r) => Number(r.cpuPerSend))
  const cpuWorst = cpuValues.length ? Math.max(...cpuValues) : Number.NaN
  const databaseName = ready.database === 'postgres' ? 'PostgreSQL' : 'PGlite'
  const budgets = [
    single && {
      name: `chat overhead to first token, one stream, p50 / p95, ${databaseName}`,
      limit: `≤ ${BUDGET.oneP50} / ≤ ${BUDGET.oneP95} ms`,
      value: `${fmt(single.overheadP50)} / ${fmt(single.overheadP95)} ms`,
      met: Number(single.overheadP50) <= BUDGET.oneP50 && Number(single.overheadP95) <= BUDGET.oneP95,
    },
    twenty && {
      name: `chat overhead to first token, 20 concurrent streams, p95, ${databaseName}`,
      limit: `≤ ${BUDGET.twentyP95} ms`,
      value: `${fmt(twenty.overheadP95)} ms (p50 ${fmt(twenty.overheadP50)})`,
      met: Number(twenty.overheadP95) <= BUDGET.twentyP95,
    },
    burst && {
      name: `chat overhead to first token, 200 concurrent streams, p95, ${databaseName} (capacity: streams to first token per second)`,
      limit: `≤ ${BUDGET.burstP95} ms`,
      value: `${fmt(burst.overheadP95)} ms (p50 ${fmt(burst.overheadP50)}; ${Math.round(Number(burst.startsPerSecond))} streams/s)`,
      met: Number(burst.overheadP95) <= BUDGET.burstP95,
    },
    cpuValues.length && {
      name: `app CPU per message, storing the reply included, the worst of ${rows.map((r) => r.concurrency).join(' / ')} streams, ${databaseName}`,
      limit: `≤ ${BUDGET.cpuPerSend} ms`,
      value: `${fmt(cpuWorst)} ms (${cpuValues.map((v) => v.toFixed(2)).join(' / ')})`,
      met: cpuWorst <= BUDGET.cpuPerSend,
    },
  ].filter((b): b is { name: string; limit: string; value: string; met: boolean } => Boolean(b))
  const columns = [
    'concurrent streams',
    'streams',
    'model TTFT p50',
    'direct TTFT p50',
    'app TTFT p50',
    'app TTFT p95',
    'overhead p50',
    'overhead p95',
    'before model p50',
    'after model p50',
    'app ÷ direct p50',
    'app CPU per send ms',
    'streams to first token per s',
  ]
  const tableRows = rows.map((r) => [
    Number(r.concurrency),
    Number(r.streams),
    fmt(r.modelTtftP50),
    fmt(r.directTtftP50),
    fmt(r.appTtftP50),
    fmt(r.appTtftP95),
    fmt(r.overheadP50),
    fmt(r.overheadP95),
    fmt(r.beforeModelP50),
    fmt(r.afterModelP50),
    `${Number(r.ratioP50).toFixed(2)}×`,
    fmt(r.cpuPerSend),
    String(Math.round(Number(r.startsPerSecond))),
  ])
  const table = [
    `Time to first token through POST /api/chat/stream (real HTTP on 127.0.0.1, model double first-token delay ${FIRST_TOKEN_DELAY_MS} ms), ${new Date().toISOString().slice(0, 10)}, ${machine}.`,
    'Overhead = (TTFT through the app − the double’s own TTFT) − the same for the client straight to the double.',
    '',
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---:').join(' | ')} |`,
    ...tableRows.map((r) => `| ${r.join(' | ')} |`),
    '',
    '| open streams | server RSS per stream KiB | server heap per stream KiB |',
    '| ---: | ---: | ---: |',
    ...memoryRows.map((r) => `| ${r.concurrency} | ${fmt(r.rssPerStreamKiB)} | ${fmt(r.heapPerStreamKiB)} |`),
    '',
    '| budget | limit | measured | met |',
    '| --- | --- | --- | :---: |',
    ...budgets.map((b) => `| ${b.name} | ${b.limit} | ${b.value} | ${b.met ? 'yes' : '**no**'} |`),
  ].join('\n')
  console.log(`\n${table}\n`)
  const outDir = path.resolve(import.meta.dirname, 'results')
  mkdirSync(outDir, { recursive: true })
  const result = {
    name: 'chat',
    title: 'Chat: time to first token and memory per stream',
    date: new Date().toISOString(),
    machine,
    notes: [
      `Through \`POST /api/chat/stream\` over real HTTP on 127.0.0.1, on ${databaseName}, each send with its own request id as the web client sends it; the OpenAI double answers its first token after ${FIRST_TOKEN_DELAY_MS} ms and stamps when each request arrived and when it wrote that token. ${USERS} users, each with a chat; one warm-up send from each first.`,
      'Overhead = (TTFT through the app − the double’s own TTFT) − the same for the client streaming straight from the double (the baseline). Baseline and app rounds alternate (which goes first alternates too), so load from other jobs on the shared machine falls on both. "Before model" = request sent → double received it; "after model" = double’s first token → client’s first `delta` event. "App CPU per send" = the app process’s CPU time (user + system) over the rounds ÷ streams: the whole stream, storing the reply included.',
      `Budgets (issue 24): one stream p50 ≤ ${BUDGET.oneP50} ms and p95 ≤ ${BUDGET.oneP95} ms; 20 streams started at once p95 ≤ ${BUDGET.twentyP95} ms; 200 at once p95 ≤ ${BUDGET.burstP95} ms; app CPU per message ≤ ${BUDGET.cpuPerSend} ms. Streams started together queue on the one Node thread and, on PGlite, on its single connection, so the last of a burst of N waits for about N × the CPU a send costs. "Streams to first token per s" is a burst's size ÷ (the time from its first send to its last first token − the model's ${FIRST_TOKEN_DELAY_MS} ms), median over its rounds: the instance's capacity; more instances behind PostgreSQL (docs/deployment.md) divide a burst between them.`,
    ],
    tables: [
      { caption: 'Time to first token (ms)', columns, rows: tableRows },
      {
        caption: 'App memory per open stream (held past its first token, minus the idle server)',
        columns: ['open streams', 'RSS per stream KiB', 'heap per stream KiB'],
        rows: memoryRows.map((r) => [Number(r.concurrency), fmt(r.rssPerStreamKiB), fmt(r.heapPerStreamKiB)]),
      },
    ],
    budgets,
  }
  writeFileSync(path.join(outDir, 'chat.json'), `${JSON.stringify(result, null, 2)}\n`)
}

function nextMessage<T extends { type: string }>(child: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T) => {
      if (message.type !== type) return
      child.off('message', onMessage)
      child.off('exit', onExit)
      resolve(message)
    }
    const onExit = (code: number | null) => reject(new Error(`the app exited (${code})`))
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}
