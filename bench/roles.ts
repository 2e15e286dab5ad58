// Role listing over 100,000 roles: p50/p95 server time for each sort, tag filters, search and deep
// pages, next to a bare route that returns the same bytes (the baseline measured in the same run).
// `npm run bench:roles` (DATABASE_URL to use PostgreSQL; ROLES=N to change the table size).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '#db/client.ts'
import { buildApp } from '#server/app.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { seedSyntheticRoles } from '#server/modules/catalogue/demo-content.ts'

const ROLES = Number(process.env.ROLES ?? 100_000)
const REQUESTS = Number(process.env.REQUESTS ?? 200)
const WARMUP = 20
const BUDGET_P95_MS = 20

const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-bench-'))
const database = openDatabase({ url: process.env.DATABASE_URL, dataDir })
await database.migrate()
console.log(`seeding ${ROLES} roles into ${database.kind}...`)
const seedStarted = performance.now()
await seedSyntheticRoles(database.db, ROLES)
await database.analyze()
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`)

const app = await buildApp({
  config: loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: 'b'.repeat(48), LOG_LEVEL: 'silent' }),
  database,
  kv: openKeyValueStore(undefined),
  closeDatabase: true,
  logger: false,
})
let baselineBody = '{}'
app.get('/bench/bare', async (_request, reply) => reply.header('content-type', 'application/json').send(baselineBody))
await app.ready()

type Result = { name: string; p50: number; p95: number; p99: number; bytes: number }

async function measure(name: string, url: string): Promise<Result> {
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const started = performance.now()
    const res = await app.inject({ method: 'GET', url })
    const elapsed = performance.now() - started
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    bytes = res.body.length
    if (i >= WARMUP) times.push(elapsed)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0
  return { name, p50: at(0.5), p95: at(0.95), p99: at(0.99), bytes }
}

const total = (await app.inject({ method: 'GET', url: '/api/roles?pageSize=24' })).json().data.total as number
const deep = Math.max(1, Math.floor(total / 24 / 2))
const scenarios: [string, string][] = [
  ['popularity, page 1', '/api/roles?sort=popularity'],
  ['popularity, page 50', '/api/roles?sort=popularity&page=50'],
  [`popularity, page ${deep} (middle)`, `/api/roles?sort=popularity&page=${deep}`],
  ['newest, page 1', '/api/roles?sort=newest'],
  ['newest, page 50', '/api/roles?sort=newest&page=50'],
  ['rating, page 1', '/api/roles?sort=rating'],
  ['rating, page 50', '/api/roles?sort=rating&page=50'],
  ['tag filter, page 1', '/api/roles?tags=fantasy'],
  ['tag filter, page 50', '/api/roles?tags=fantasy&page=50'],
  ['tag filter, newest, page 50', '/api/roles?tags=fantasy&sort=newest&page=50'],
  ['two tags, page 1', '/api/roles?tags=fantasy,romance'],
  ['search, page 1', '/api/roles?q=kari'],
  ['page size 100', '/api/roles?pageSize=100'],
]

const results: (Result & { ratio: number; baselineP50: number })[] = []
for (const [name, url] of scenarios) {
  baselineBody = (await app.inject({ method: 'GET', url })).body
  const baseline = await measure('bare route, same bytes', '/bench/bare')
  const result = await measure(name, url)
  results.push({ ...result, baselineP50: baseline.p50, ratio: result.p50 / baseline.p50 })
}
await app.close()

const fmt = (n: number) => n.toFixed(2)
const rows = results.map(
  (r) =>
    `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.p99)} | ${fmt(r.baselineP50)} | ${r.ratio.toFixed(1)}× | ${r.p95 <= BUDGET_P95_MS ? 'yes' : '**no**'} |`,
)
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ${database.kind}`
const table = [
  `Role listing over ${total.toLocaleString('en')} public roles (${ROLES.toLocaleString('en')} seeded), ${REQUESTS} requests each after ${WARMUP} warm-up, in-process (\`app.inject\`), ${new Date().toISOString().slice(0, 10)}, ${machine}.`,
  '',
  '| scenario | p50 ms | p95 ms | p99 ms | bare route p50 ms | p50 ÷ bare | p95 ≤ 20 ms |',
  '| --- | ---: | ---: | ---: | ---: | ---: | :---: |',
  ...rows,
].join('\n')
console.log(`\n${table}\n`)
const outDir = path.resolve(import.meta.dirname, 'results')
mkdirSync(outDir, { recursive: true })
writeFileSync(
  path.join(outDir, `roles-${database.kind}.json`),
  JSON.stringify({ date: new Date().toISOString(), machine, total, results }, null, 2),
)
const worst = Math.max(...results.map((r) => r.p95))
console.log(`worst p95: ${fmt(worst)} ms (budget ${BUDGET_P95_MS} ms): ${worst <= BUDGET_P95_MS ? 'met' : 'NOT met'}`)
