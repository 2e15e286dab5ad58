// The embedded model (ADR 036), measured against baselines of the same run (`npm run bench:embedded`):
//
// 1. Tokens per second of the embedded provider (in this process, through the in-process handler
//    the chat uses) against llama.cpp's `llama-server` (../shared/llama) on the same GGUF, the same
//    chat template, threads, context, sampling, seed and prompt; rounds alternate. Target ≥ 0.9×.
// 2. p95 latency of the role listing API and of a page while nothing generates and while two
//    chats generate without pause on the embedded model in the server process; phases alternate.
// 3. Time from `node server/index.ts` to the first token of a chat, on a fresh data folder whose
//    model file is present (the users are seeded first, which also runs the migrations).
//
// The tiny test model (1.75 MB, random weights) makes tokens nearly free, so (1) on it shows the
// per-token overhead of the JavaScript path at its worst, not a real model's speed. So (1) runs
// again on a model generated for the run (lib/gguf-model.ts: the tiny model's tokenizer, random
// f16 weights, embedding 1536, 8 blocks; 581 MB in a temporary folder, deleted after), on which a
// token reads ~0.53 GB of weights (290 M parameters in f16, about what a 1 B model quantised to
// 4 bits reads): ~16 ms on one thread here.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import { type ModelShape, writeRandomLlama } from './lib/gguf-model.ts'

const root = path.resolve(import.meta.dirname, '..')
const LLAMA = path.resolve(root, '..', 'shared', 'llama')
const GGUF = path.join(LLAMA, 'tiny-llama.gguf')
const TEMPLATE = path.join(LLAMA, 'templates', 'Qwen-Qwen3-0.6B.jinja')
/** Thread counts compared, the same on both sides (the embedded default on 2 cores is 1). */
const THREAD_COUNTS = (process.env.BENCH_THREADS ?? '1,2').split(',').map(Number)
/** Thread counts on the generated model (two threads on two cores collapse, see docs/performance.md). */
const BIG_THREAD_COUNTS = (process.env.BENCH_BIG_THREADS ?? '1').split(',').filter(Boolean).map(Number)
/** The generated model: Qwen 2.5 1.5B's width and heads, fewer blocks and a narrower FFN (≤ 600 MB). */
const BIG_SHAPE: ModelShape = { embedding: 1536, blocks: 8, feedForward: 3840, heads: 12, kvHeads: 4 }
const CONTEXT = 2048
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8)
const MAX_TOKENS = 256
// As ../shared/llama/run.sh: the byte tokens (3-258) banned, so the random model writes text the
// server's output parser takes. Sent in the request, so both sides sample alike.
const BANNED = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [String(i + 3), -100]))
const SAMPLING = { temperature: 0.8, top_k: 40, top_p: 0.95, min_p: 0.05, seed: 42, logit_bias: BANNED }
const MESSAGES = [
  { role: 'system', content: 'You are Mara, the keeper of an old lighthouse.' },
  { role: 'user', content: 'Tell me about the storm last winter.' },
]
const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 200)

if (!existsSync(GGUF) || !existsSync(path.join(LLAMA, 'llama-server'))) {
  console.error(`bench:embedded needs ${LLAMA} (llama-server and tiny-llama.gguf)`)
  process.exit(1)
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
const median = (values: number[]) => percentile(values, 50)

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

async function waitFor(url: string, child: ChildProcess, seconds = 60) {
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited`)
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return
    if (Date.now() > deadline) throw new Error(`${url} did not answer`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** One streamed completion: tokens (usage) and the time from the first to the last content chunk. */
async function generation(fetcher: typeof fetch, url: string) {
  const response = await fetcher(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tiny',
      messages: MESSAGES,
      max_tokens: MAX_TOKENS,
      stream: true,
      stream_options: { include_usage: true },
      ...SAMPLING,
    }),
  })
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (!reader) throw new Error(`no body (${response.status})`)
  let first = 0
  let last = 0
  let tokens = 0
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const line = buffer.slice(0, end).replace(/^data: /, '')
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
      if (line === '[DONE]') continue
      const chunk = JSON.parse(line) as {
        choices?: { delta?: { content?: string | null } }[]
        usage?: { completion_tokens: number }
        error?: unknown
      }
      if (chunk.error) throw new Error(`${url}: ${JSON.stringify(chunk.error)}`)
      if (chunk.choices?.[0]?.delta?.content) {
        last = performance.now()
        first ||= last
      }
      if (chunk.usage) tokens = chunk.usage.completion_tokens
    }
  }
  if (!first || tokens < 2) throw new Error(`no tokens from ${url}`)
  return { tokens, perSecond: ((tokens - 1) * 1000) / (last - first) }
}

async function tokensPerSecond(gguf: string, THREADS: number) {
  const { createEmbeddedProvider } = await import('#server/modules/models/embedded/provider.ts')
  const { modelFetch } = await import('#server/modules/models/model-fetch.ts')
  const provider = createEmbeddedProvider({
    config: {
      source: gguf,
      contextTokens: CONTEXT,
      parallel: 1,
      chatTemplateFile: TEMPLATE,
      gpu: 'off',
      threads: THREADS,
    },
    dataDir: tmpdir(),
    downloads: false,
    modelName: 'tiny',
    log: () => {},
    warn: (info, msg) => console.warn(msg, info),
  })
  await provider.start()
  const port = await freePort()
  const server = spawn(
    path.join(LLAMA, 'llama-server'),
    [
      '-m',
      gguf,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '-c',
      String(CONTEXT),
      '-np',
      '1',
      '-t',
      String(THREADS),
    ].concat(['--no-webui', '--jinja', '--chat-template-file', TEMPLATE]),
    { stdio: 'ignore' },
  )
  try {
    await waitFor(`http://127.0.0.1:${port}/health`, server)
    const embedded: number[] = []
    const llamaServer: number[] = []
    // One warm-up each, then alternating rounds (which goes first alternates too).
    await generation(modelFetch as typeof fetch, 'embedded://local/v1/chat/completions')
    await generation(fetch, `http://127.0.0.1:${port}/v1/chat/completions`)
    for (let i = 0; i < ROUNDS; i++) {
      const runs = [
        async () =>
          embedded.push(
            (await generation(modelFetch as typeof fetch, 'embedded://local/v1/chat/completions')).perSecond,
          ),
        async () =>
          llamaServer.push((await generation(fetch, `http://127.0.0.1:${port}/v1/chat/completions`)).perSecond),
      ]
      if (i % 2) runs.reverse()
      for (const run of runs) await run()
    }
    return { embedded: median(embedded), llamaServer: median(llamaServer) }
  } finally {
    server.kill('SIGKILL')
    await provider.close()
  }
}

/** The app in its own process on the embedded model: start to first token, then latency. */
async function siteUnderGeneration() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-bench-embedded-'))
  const users = [0, 1, 2].map((i) => ({
    username: `bench${i}`,
    email: `bench${i}@example.com`,
    password: 'bench-password-123',
  }))
  execFileSync(
    process.execPath,
    ['db/seed/seed-cli.ts', ...users.flatMap((u) => ['--user', `${u.username}:${u.email}:${u.password}`])],
    { cwd: root, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, stdio: 'ignore' },
  )
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const startedAt = performance.now()
  const child = spawn(process.execPath, ['server/index.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      EMBEDDED_MODEL: GGUF,
      EMBEDDED_CHAT_TEMPLATE: TEMPLATE,
      EMBEDDED_GPU: 'off',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    const post = async (pathname: string, body: unknown, token?: string) => {
      const res = await fetch(`${url}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
      return { status: res.status, res }
    }
    const sessions: { token: string; sessionId: string }[] = []
    let firstTokenMs = 0
    for (;;) {
      if (child.exitCode !== null) throw new Error('the server exited')
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
      if (ready) break
      await new Promise((r) => setTimeout(r, 20))
    }
    const list = (await (await fetch(`${url}/api/roles?sort=newest`)).json()) as {
      data: { items: { roleId: string; isAdult: boolean }[] }
    }
    const roleId = list.data.items.find((r) => !r.isAdult)?.roleId
    for (const user of users) {
      const login = await post('/api/login', { email: user.email, password: user.password })
      const token = ((await login.res.json()) as { data: { token: string } }).data.token
      const created = await post('/api/createSession', { roleId }, token)
      sessions.push({ token, sessionId: ((await created.res.json()) as { data: { id: string } }).data.id })
    }
    // The first token: sent again while the model is still being prepared (503 model_preparing).
    const [firstUser] = sessions
    if (!firstUser) throw new Error('no session')
    for (let attempt = 0; !firstTokenMs; attempt++) {
      const { res } = await post(
        '/api/chat/stream',
        { sessionId: firstUser.sessionId, message: 'Hello?' },
        firstUser.token,
      )
      const text = await res.text()
      if (text.includes('event: delta')) firstTokenMs = performance.now() - startedAt
      else await new Promise((r) => setTimeout(r, 50))
      if (attempt > 600) throw new Error(`no first token: ${text.slice(0, 300)}`)
    }

    const targets = [
      { name: 'role listing `GET /api/roles?sort=popularity`', path: '/api/roles?sort=popularity' },
      { name: 'page `GET /characters`', path: '/characters' },
    ]
    const samples = new Map(targets.map((t) => [t.name, { idle: [] as number[], busy: [] as number[] }]))
    let generating = false
    let generated = 0
    let failed = 0
    let lastFailure = ''
    const chatLoop = async (session: { token: string; sessionId: string }) => {
      while (generating) {
        const { res } = await post(
          '/api/chat/stream',
          { sessionId: session.sessionId, message: 'Go on.' },
          session.token,
        )
        const text = await res.text()
        if (text.includes('event: done')) generated++
        else {
          failed++
          lastFailure = `${res.status} ${text.slice(0, 200)}`
          await new Promise((r) => setTimeout(r, 50))
        }
      }
    }
    const measure = async (phase: 'idle' | 'busy', count: number) => {
      for (let i = 0; i < count; i++) {
        for (const target of targets) {
          const t0 = performance.now()
          const res = await fetch(`${url}${target.path}`)
          await res.arrayBuffer()
          samples.get(target.name)?.[phase].push(performance.now() - t0)
        }
      }
    }
    const chunk = Math.max(10, Math.floor(LATENCY_REQUESTS / 4))
    await measure('idle', 10)
    for (const list of samples.values()) list.idle.length = 0
    for (let done = 0; done < LATENCY_REQUESTS; done += chunk) {
      await measure('idle', chunk)
      generating = true
      const loops = [chatLoop(sessions[1] ?? firstUser), chatLoop(sessions[2] ?? firstUser)]
      await new Promise((r) => setTimeout(r, 200))
      await measure('busy', chunk)
      generating = false
      await Promise.all(loops)
    }
    return { firstTokenMs, samples, generated, failed, lastFailure }
  } finally {
    child.kill('SIGTERM')
  }
}

execFileSync(process.execPath, [path.join(root, 'scripts', 'build.ts'), '--if-stale'], { cwd: root, stdio: 'inherit' })
const speeds: { model: string; threads: number; embedded: number; llamaServer: number }[] = []
for (const threads of THREAD_COUNTS) {
  console.log(`tokens per second: embedded vs llama-server, tiny model, ${ROUNDS} rounds, ${threads} threads...`)
  speeds.push({ model: 'tiny-llama.gguf', threads, ...(await tokensPerSecond(GGUF, threads)) })
}
if (BIG_THREAD_COUNTS.length) {
  const folder = mkdtempSync(path.join(tmpdir(), 'rp-bench-gguf-'))
  try {
    const big = path.join(folder, 'random-1536x8.gguf')
    const t0 = performance.now()
    const bytes = await writeRandomLlama(GGUF, big, BIG_SHAPE)
    const name = `random ${BIG_SHAPE.embedding}×${BIG_SHAPE.blocks} f16 (${(bytes / 1e6).toFixed(0)} MB)`
    console.log(`generated ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    for (const threads of BIG_THREAD_COUNTS) {
      console.log(`tokens per second: embedded vs llama-server, ${name}, ${ROUNDS} rounds, ${threads} threads...`)
      speeds.push({ model: name, threads, ...(await tokensPerSecond(big, threads)) })
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
const SITE = process.env.BENCH_SITE !== '0'
if (SITE) console.log('site latency with and without generation, and start to first token...')
const site = SITE ? await siteUnderGeneration() : undefined

const date = new Date().toISOString().slice(0, 16).replace('T', ' ')
const cpu = cpus()[0]?.model ?? 'unknown CPU'
console.log(`\n_${date} UTC, ${cpus().length} × ${cpu}, Node ${process.version}_\n`)
console.log(`tokens/s, median of ${ROUNDS}, ${MAX_TOKENS} tokens:\n`)
console.log('| model | threads | embedded | llama-server | ratio |')
console.log('| --- | ---: | ---: | ---: | ---: |')
for (const speed of speeds) {
  console.log(
    `| ${speed.model} | ${speed.threads} | ${speed.embedded.toFixed(1)} | ${speed.llamaServer.toFixed(1)} | ${(speed.embedded / speed.llamaServer).toFixed(2)}× |`,
  )
}
if (site) {
  console.log(
    `\n| request (${LATENCY_REQUESTS} each) | p95 idle ms | p95 generating ms | ratio | p50 idle ms | p50 generating ms |`,
  )
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
  for (const [name, s] of site.samples) {
    const [i95, b95] = [percentile(s.idle, 95), percentile(s.busy, 95)]
    console.log(
      `| ${name} | ${i95.toFixed(2)} | ${b95.toFixed(2)} | ${(b95 / i95).toFixed(2)}× | ${median(s.idle).toFixed(2)} | ${median(s.busy).toFixed(2)} |`,
    )
  }
  console.log(`\nreplies generated meanwhile: ${site.generated} (failed: ${site.failed} ${site.lastFailure})`)
  console.log(
    `process start to first token (fresh data folder, model file present): ${site.firstTokenMs.toFixed(0)} ms`,
  )
}
