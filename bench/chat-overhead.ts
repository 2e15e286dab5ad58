// What the platform adds to a model's time to first token (DESIGN.md budget: <= 10 ms), for 1, 50
// and 200 concurrent streams through POST /api/chat/stream, and the server's memory per open stream.
// `npm run bench:chat` (DATABASE_URL to use PostgreSQL instead of the embedded PGlite).
//
// The OpenAI API double runs here, in the measuring process, and stamps when it received each
// request and when it wrote the first token; the app runs in a child process (so its memory is its
// own). The baseline, measured in the same run, is the same client streaming straight from the
// double: the platform's overhead is TTFT through the app minus TTFT straight from the model.
import { type ChildProcess, fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'

const CONCURRENCY = [1, 50, 200]
const USERS = 200
const FIRST_TOKEN_DELAY_MS = Number(process.env.FIRST_TOKEN_DELAY_MS ?? 50)
const REPLY = 'The keeper nods and lights the lamp for you.'
const BUDGET_MS = 10
const QUICK = process.env.BENCH_QUICK === '1'

type BenchUser = { token: string; sessionId: string }
type Ready = { type: 'ready'; port: number; users: BenchUser[]; database: string }
type Memory = { type: 'memory'; usage: NodeJS.MemoryUsage }

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
    execArgv: ['--expose-gc'],
    env: { ...process.env, BENCH_MODELS_FILE: modelsFile },
    stdio: 'inherit',
  })
  console.log(`starting the app with ${USERS} users...`)
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
    if (!at) throw new Error(`stream ended without a token: ${buffer.slice(0, 300)}`)
    return at
  }

  const viaApp = (user: BenchUser) => async (hold?: Promise<void>) => {
    const message = `Knock ${++sequence}`
    const started = now()
    const response = await fetch(appUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: user.sessionId, message }),
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
  async function measure(concurrency: number, rounds: number, run: (i: number) => ReturnType<typeof direct>) {
    const samples: Sample[] = []
    for (let round = 0; round < rounds; round++) {
      const results = await Promise.all(Array.from({ length: concurrency }, (_, i) => run(i)))
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
    return samples
  }

  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  }
  let userCursor = 0
  const nextUser = () => ready.users[userCursor++ % ready.users.length] as BenchUser

  // Warm-up: JIT, connection pools, the tokenizer, PGlite's caches.
  await measure(1, QUICK ? 5 : 20, () => viaApp(nextUser())())
  await measure(1, QUICK ? 5 : 20, () => direct())

  const rows: Record<string, number | string>[] = []
  for (const concurrency of CONCURRENCY) {
    const rounds = QUICK ? Math.ceil(20 / concurrency) : Math.max(3, Math.ceil(100 / concurrency))
    const base = await measure(concurrency, rounds, () => direct())
    const app = await measure(concurrency, rounds, () => viaApp(nextUser())())
    const baseOverhead = base.map((s) => s.ttft - s.model)
    const appOverhead = app.map((s) => s.ttft - s.model)
    const p50 = quantile(appOverhead, 0.5) - quantile(baseOverhead, 0.5)
    const p95 = quantile(appOverhead, 0.95) - quantile(baseOverhead, 0.95)
    rows.push({
      concurrency,
      streams: app.length,
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
  for (const concurrency of [50, 200]) {
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
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ${ready.database}`
  const table = [
    `Time to first token through POST /api/chat/stream (real HTTP on 127.0.0.1, model double first-token delay ${FIRST_TOKEN_DELAY_MS} ms), ${new Date().toISOString().slice(0, 10)}, ${machine}.`,
    'Overhead = (TTFT through the app − the double’s own TTFT) − the same for the client straight to the double.',
    '',
    '| concurrent streams | streams | model TTFT p50 | direct TTFT p50 | app TTFT p50 | app TTFT p95 | overhead p50 | overhead p95 | before model p50 | after model p50 | app ÷ direct p50 | p95 ≤ 10 ms |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: |',
    ...rows.map(
      (r) =>
        `| ${r.concurrency} | ${r.streams} | ${fmt(r.modelTtftP50)} | ${fmt(r.directTtftP50)} | ${fmt(r.appTtftP50)} | ${fmt(r.appTtftP95)} | ${fmt(r.overheadP50)} | ${fmt(r.overheadP95)} | ${fmt(r.beforeModelP50)} | ${fmt(r.afterModelP50)} | ${Number(r.ratioP50).toFixed(2)}× | ${Number(r.overheadP95) <= BUDGET_MS ? 'yes' : '**no**'} |`,
    ),
    '',
    '| open streams | server RSS per stream KiB | server heap per stream KiB |',
    '| ---: | ---: | ---: |',
    ...memoryRows.map((r) => `| ${r.concurrency} | ${fmt(r.rssPerStreamKiB)} | ${fmt(r.heapPerStreamKiB)} |`),
  ].join('\n')
  console.log(`\n${table}\n`)
  const outDir = path.resolve(import.meta.dirname, 'results')
  mkdirSync(outDir, { recursive: true })
  const single = rows.find((r) => r.concurrency === 1)
  const result = {
    name: 'chat',
    title: 'Chat: time to first token and memory per stream',
    date: new Date().toISOString(),
    machine,
    notes: [
      `Through \`POST /api/chat/stream\` over real HTTP on 127.0.0.1, on ${ready.database === 'postgres' ? 'PostgreSQL' : 'PGlite'}; the OpenAI double answers its first token after ${FIRST_TOKEN_DELAY_MS} ms and stamps when each request arrived and when it wrote that token.`,
      'Overhead = (TTFT through the app − the double’s own TTFT) − the same for the client streaming straight from the double (the baseline, same run). "Before model" = request sent → double received it; "after model" = double’s first token → client’s first `delta` event.',
      'The budget is what the platform adds to one stream. 50 and 200 streams started in the same millisecond queue on the one Node thread (about 1.5 ms of CPU per send) and, on PGlite, on its single connection: those rows show queueing, which more instances (docs/deployment.md) absorb.',
    ],
    tables: [
      {
        caption: 'Time to first token (ms)',
        columns: [
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
        ],
        rows: rows.map((r) => [
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
        ]),
      },
      {
        caption: 'App memory per open stream (held past its first token, minus the idle server)',
        columns: ['open streams', 'RSS per stream KiB', 'heap per stream KiB'],
        rows: memoryRows.map((r) => [Number(r.concurrency), fmt(r.rssPerStreamKiB), fmt(r.heapPerStreamKiB)]),
      },
    ],
    budgets: [
      {
        name: 'chat overhead to first token, p95 (one stream)',
        limit: `≤ ${BUDGET_MS} ms`,
        value: `${fmt(single?.overheadP95)} ms`,
        met: Number(single?.overheadP95) <= BUDGET_MS,
      },
    ],
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
