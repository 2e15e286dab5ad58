// `npm run soak`: mixed traffic against the real server for a bounded time (SOAK_SECONDS, default
// 300), on loopback only: visitors browsing the catalogue and pages, people logging in, and CHATS
// (default 200) concurrent chats streaming from the OpenAI double, some on a premium model that
// spends diamonds. Then it checks what must hold after load (issue 11):
// - every message the server acknowledged (a `done` event) is stored and readable;
// - every balance equals the sum of its ledger, and none is negative;
// - the error rate (5xx, broken streams) stays at zero, and the server's memory stays flat (the last
//   minute's RSS ÷ the second minute's).
// The server runs in a child process on the embedded database (DATABASE_URL: a PostgreSQL database
// of its own). SOAK_INSTANCES=2 (with DATABASE_URL and REDIS_URL) starts two server processes on that
// PostgreSQL and Redis, as docs/deployment.md describes, and spreads the traffic over both: each
// person logs in on one instance, chats on the other, and is read back on the first; memory is
// checked per instance. Results: stdout, bench/results/soak.json; exit code 1 when a check fails.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import type { ChatStreamEvent } from '#contracts/chat.ts'
import { openDatabase } from '#db/client.ts'
import { seedSyntheticRoles } from '#server/modules/catalogue/demo-content.ts'
import { startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { readEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { BENCH_PASSWORD, benchEmail, seedBenchUsers } from '../bench/lib/seed-large.ts'

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300)
const CHATS = Number(process.env.SOAK_CHATS ?? 200)
const BROWSERS = Number(process.env.SOAK_BROWSERS ?? 8)
const INSTANCES = Number(process.env.SOAK_INSTANCES ?? 1)
const PREMIUM_EVERY = 4 // one chat in four uses the premium model
const root = path.resolve(import.meta.dirname, '..')

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const rows = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[]

// --- set-up --------------------------------------------------------------------------------------

const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-soak-'))
const databaseUrl = process.env.DATABASE_URL
const redisUrl = process.env.REDIS_URL
if (INSTANCES > 1 && (!databaseUrl || !redisUrl)) {
  // Several instances share nothing but PostgreSQL and Redis (logins, rate limits, payments).
  throw new Error('SOAK_INSTANCES > 1 needs DATABASE_URL (PostgreSQL) and REDIS_URL')
}
{
  const database = openDatabase({ url: databaseUrl, dataDir })
  await database.migrate()
  await seedSyntheticRoles(database.db, 2000)
  await seedBenchUsers(database.db, CHATS)
  await database.analyze()
  await database.close()
}

const api = await startOpenAiApi({ reply: 'The keeper nods, sets the kettle on and tells you about the storm.' })
api.tokenDelayMs = 40
const modelsFile = writeModelsFile([
  { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 8192, baseUrl: api.baseUrl },
  {
    id: 'grand-70b',
    name: 'Grand 70B',
    premium: true,
    diamondsPerMessage: 5,
    contextTokens: 8192,
    baseUrl: api.baseUrl,
  },
])
type Instance = { url: string; child: ReturnType<typeof spawn> }
async function startInstance(): Promise<Instance> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // SOAK_SERVER_FLAGS: Node flags for the server, as `npm start` gives them (bench/memory.ts).
  const flags = (process.env.SOAK_SERVER_FLAGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...flags, path.join(root, 'server', 'index.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      // Outside production the payment sandbox is on: premium chatters buy a plan through it.
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      JWT_SECRET: 'soak-'.repeat(10),
      CRON_SECRET: 'soak-cron-secret-0123456789',
      MODELS_FILE: modelsFile,
      TRUST_PROXY: '1', // each simulated person comes from an address of their own
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  process.on('exit', () => child.kill('SIGKILL'))
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break
    } catch {}
    if (i > 600) throw new Error('the server did not get ready')
    await sleep(200)
  }
  return { url, child }
}
// Started together, as a deployment would (their migrations and demo content race).
const instances = await Promise.all(Array.from({ length: INSTANCES }, startInstance))
const instanceUrl = (n: number) => (instances[n % INSTANCES] as Instance).url

// --- load ----------------------------------------------------------------------------------------

/** `rssMiB[i]`: the samples of instance i in that minute. */
type Minute = { requests: number; errors: number; chats: number; refused: number; rssMiB: number[][] }
const minutes: Minute[] = []
const startedAt = Date.now()
const minute = () => {
  const index = Math.floor((Date.now() - startedAt) / 60_000)
  while (minutes.length <= index)
    minutes.push({ requests: 0, errors: 0, chats: 0, refused: 0, rssMiB: instances.map(() => []) })
  return minutes[index] as Minute
}
const running = () => Date.now() - startedAt < SECONDS * 1000
const errors: string[] = []
const count = (status: number, what: string) => {
  const m = minute()
  m.requests++
  if (status >= 500) {
    m.errors++
    if (errors.length < 20) errors.push(`${what} → ${status}`)
  } else if (status === 402 || status === 429) m.refused++
}

const ipOf = (n: number) => `198.51.${Math.floor(n / 250)}.${(n % 250) + 1}`

async function browse(n: number) {
  const url = instanceUrl(n)
  const pages = ['/', '/characters', '/characters?sort=newest', '/subscribe', '/blog']
  let roleIds: string[] = []
  while (running()) {
    const page = Math.floor(Math.random() * 50) + 1
    const list = await fetch(`${url}/api/roles?page=${page}&sort=popularity`, {
      headers: { 'x-forwarded-for': ipOf(10_000 + n) },
    })
    count(list.status, 'GET /api/roles')
    if (list.ok)
      roleIds = ((await list.json()) as { data: { items: { roleId: string }[] } }).data.items.map((r) => r.roleId)
    const roleId = roleIds[Math.floor(Math.random() * roleIds.length)]
    if (roleId) count((await fetch(`${url}/api/role?roleId=${roleId}`)).status, 'GET /api/role')
    const html = await fetch(`${url}${pages[Math.floor(Math.random() * pages.length)]}`, {
      headers: { cookie: 'lang=en' },
    })
    count(html.status, 'GET page')
    await html.arrayBuffer()
  }
}

type Acknowledged = { sessionId: string; token: string; ip: string; readFrom: string; messageIds: number[] }
const acknowledged: Acknowledged[] = []

async function chat(n: number) {
  // With several instances a person logs in (and is read back) on one and chats on the next.
  const home = instanceUrl(n)
  const url = instanceUrl(n + 1)
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': ipOf(n) }
  // Spread the logins (argon2id is meant to be slow) over the first seconds.
  await sleep(Math.random() * 10_000)
  const login = await fetch(`${home}/api/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: benchEmail(n + 1), password: BENCH_PASSWORD }),
  })
  count(login.status, 'POST /api/login')
  if (!login.ok) return
  const token = ((await login.json()) as { data: { token: string } }).data.token
  const auth = { ...headers, authorization: `Bearer ${token}` }
  const roles = (await (await fetch(`${url}/api/roles?page=${(n % 20) + 1}`)).json()) as {
    data: { items: { roleId: string; isAdult: boolean }[] }
  }
  const roleId = roles.data.items.find((r) => !r.isAdult)?.roleId
  const created = await fetch(`${url}/api/createSession`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ roleId }),
  })
  count(created.status, 'POST /api/createSession')
  if (!created.ok) return
  const sessionId = ((await created.json()) as { data: { id: string } }).data.id
  const mine: Acknowledged = { sessionId, token, ip: ipOf(n), readFrom: home, messageIds: [] }
  acknowledged.push(mine)
  const model = n % PREMIUM_EVERY === 0 ? 'grand-70b' : 'tavern-8b'
  if (model === 'grand-70b') {
    // Premium models need a paid plan: bought through the sandbox checkout.
    const order = await fetch(`${home}/api/subscription`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ planId: 'pro' }),
    })
    count(order.status, 'POST /api/subscription')
    const { orderId } = ((await order.json()) as { data: { orderId: string } }).data
    const paid = await fetch(`${home}/api/payment/sandbox`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ orderId, outcome: 'paid' }),
    })
    count(paid.status, 'POST /api/payment/sandbox')
  }
  let turn = 0
  while (running()) {
    turn++
    const started = Date.now()
    const res = await fetch(`${url}/api/chat/stream`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        sessionId,
        message: `Turn ${turn}: what happened at the lighthouse?`,
        chatModelId: model,
      }),
    })
    count(res.status, 'POST /api/chat/stream')
    if (res.ok) {
      let done: Extract<ChatStreamEvent, { event: 'done' }> | undefined
      const events = await readEvents(res)
      for (const event of events) if (event.event === 'done') done = event
      if (done) {
        minute().chats++
        if (done.data.userMessage) mine.messageIds.push(done.data.userMessage.id)
        mine.messageIds.push(done.data.reply.id)
      } else if (!events.some((e) => e.event === 'error' && JSON.stringify(e.data).includes('INSUFFICIENT_DIAMONDS'))) {
        minute().errors++
        if (errors.length < 20) errors.push(`stream without done: ${JSON.stringify(events.at(-1)).slice(0, 200)}`)
      }
    } else await res.arrayBuffer()
    // The send limit is 20 a minute per person: a person writes every 3.5 s at most.
    await sleep(Math.max(0, 3500 - (Date.now() - started)))
  }
}

function sampleMemory() {
  for (const [i, { child }] of instances.entries()) {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
      minute().rssMiB[i]?.push(kib / 1024)
    } catch {}
  }
}
const memoryTimer = setInterval(sampleMemory, 2000)
console.log(
  `soak: ${SECONDS} s, ${CHATS} chats, ${BROWSERS} browsers, against ${instances.map((i) => i.url).join(' and ')} (${databaseUrl ? `PostgreSQL${redisUrl ? ' + Redis' : ''}` : 'PGlite'})`,
)
await Promise.all([
  ...Array.from({ length: CHATS }, (_, n) => chat(n)),
  ...Array.from({ length: BROWSERS }, (_, n) => browse(n)),
])
clearInterval(memoryTimer)

// --- checks --------------------------------------------------------------------------------------

let missing = 0
let checked = 0
for (const session of acknowledged) {
  // Each chat is read back by its own person (another's token would be refused: 'Invalid session!').
  const auth = {
    'content-type': 'application/json',
    authorization: `Bearer ${session.token}`,
    'x-forwarded-for': session.ip,
  }
  const stored = new Set<number>()
  let before: number | undefined
  for (;;) {
    const res = await fetch(`${session.readFrom}/api/messages`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ sessionId: session.sessionId, limit: 100, ...(before ? { before } : {}) }),
    })
    if (!res.ok) break
    const items = ((await res.json()) as { data: { items: { id: number }[] } }).data.items
    for (const m of items) stored.add(m.id)
    if (items.length < 100) break
    before = items.at(-1)?.id
  }
  for (const id of session.messageIds) {
    checked++
    if (!stored.has(id)) missing++
  }
}

await Promise.all(
  instances.map(({ child }) => {
    child.kill('SIGTERM')
    return new Promise((r) => child.once('exit', r))
  }),
)
await api.close()
const database = openDatabase({ url: databaseUrl, dataDir })
const mismatched = rows<{ user_id: string }>(
  await database.db.execute(sql`
    select b.user_id from diamond_balances b
    left join (select user_id, sum(amount)::int as total from diamond_ledger group by user_id) l on l.user_id = b.user_id
    where b.balance <> coalesce(l.total, 0) or b.balance < 0`),
).length
const spent = rows<{ n: number }>(
  await database.db.execute(sql`select count(*)::int as n from diamond_ledger where amount < 0`),
)[0]?.n
await database.close()

const full = minutes.filter((_, i) => i < Math.floor(SECONDS / 60))
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const second = full[1] ?? full[0]
const last = full.at(-1)
// Per instance; the worst one counts.
const memoryRatios = instances.map((_, i) =>
  second && last ? avg(last.rssMiB[i] ?? []) / Math.max(1, avg(second.rssMiB[i] ?? [])) : 1,
)
const memoryRatio = Math.max(...memoryRatios)
const totalErrors = minutes.reduce((n, m) => n + m.errors, 0)
const checks = [
  {
    name: 'every acknowledged message is stored',
    value: `${checked - missing} / ${checked}`,
    met: missing === 0 && checked > 0,
  },
  {
    name: 'balances equal their ledger, none negative',
    value: `${mismatched} mismatched (${spent ?? 0} spends)`,
    met: mismatched === 0,
  },
  { name: 'no server errors', value: String(totalErrors), met: totalErrors === 0 },
  {
    name: `memory flat (last minute ÷ second minute RSS${INSTANCES > 1 ? ', per instance' : ''})`,
    value: memoryRatios.map((r) => `${r.toFixed(2)}×`).join(', '),
    met: memoryRatio <= 1.25,
  },
]
const table = [
  `| minute | requests | chat replies | refused (402/429) | errors | ${INSTANCES > 1 ? instances.map((_, i) => `RSS MiB ${String.fromCharCode(97 + i)}`).join(' | ') : 'server RSS MiB'} |`,
  `| ---: | ---: | ---: | ---: | ---: | ${instances.map(() => '---:').join(' | ')} |`,
  ...minutes.map(
    (m, i) =>
      `| ${i + 1} | ${m.requests} | ${m.chats} | ${m.refused} | ${m.errors} | ${m.rssMiB.map((r) => avg(r).toFixed(0)).join(' | ')} |`,
  ),
  '',
  '| check | measured | met |',
  '| --- | --- | :---: |',
  ...checks.map((c) => `| ${c.name} | ${c.value} | ${c.met ? 'yes' : '**no**'} |`),
].join('\n')
console.log(
  `\n${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}\n\n${table}\n`,
)
if (errors.length) console.log(`first errors:\n${errors.join('\n')}`)
mkdirSync(path.join(root, 'bench', 'results'), { recursive: true })
writeFileSync(
  path.join(root, 'bench', 'results', 'soak.json'),
  `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, chats: CHATS, instances: INSTANCES, database: databaseUrl ? 'postgres' : 'pglite', minutes, checks, errors }, null, 2)}\n`,
)
process.exit(checks.every((c) => c.met) ? 0 : 1)
