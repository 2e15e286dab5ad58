// Role listing over 100,000 roles: p50/p95 server time for each sort, tag filters, search and deep
// pages, next to a bare route that returns the same bytes (the baseline measured in the same run).
// Twice, the scenarios taken in turn (round robin): with the listing caches bypassed (the database
// path: anchors and totals cached as between changes, no cached head) and as served (first pages
// from the cached head). Then what the first request after a change costs, when anchors and
// totals are computed again.
// `npm run bench:roles` (DATABASE_URL=postgres://... to use PostgreSQL: a database of its own is
// created on that server and dropped at the end; ROLES=N, REQUESTS=N; BENCH_QUICK=1 for a smoke
// run). Writes bench/results/roles.json (see bench/lib/report.ts).
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '#server/app.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { seedSyntheticRoles } from '#server/modules/catalogue/demo-content.ts'
import type { BenchResult } from './lib/report.ts'
import { openScratchDatabase } from './lib/scratch-database.ts'

const QUICK = process.env.BENCH_QUICK === '1'
const loadAtStart = loadavg()[0] ?? 0
const ROLES = Number(process.env.ROLES ?? (QUICK ? 10_000 : 100_000))
const REQUESTS = Number(process.env.REQUESTS ?? (QUICK ? 40 : 200))
const WARMUP = QUICK ? 5 : 20
const AFTER_CHANGE_REPEATS = QUICK ? 3 : 7
const BUDGET_P95_MS = 20

const database = await openScratchDatabase('roles')
const { dataDir } = database
console.log(`seeding ${ROLES} roles into ${database.kind}...`)
const seedStarted = performance.now()
await seedSyntheticRoles(database.db, ROLES)
// PGlite's analyze() vacuums too (it has no autovacuum); on PostgreSQL autovacuum does the same
// within a minute or so of a bulk load, so the run starts from that steady state.
if (database.kind === 'postgres') await database.db.execute(sql`VACUUM ANALYZE`)
else await database.analyze()
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`)

const kv = openKeyValueStore(undefined)
const config = loadConfig({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  JWT_SECRET: 'b'.repeat(48),
  LOG_LEVEL: 'silent',
  LLM_BASE_URL: 'http://127.0.0.1:9/v1',
})
let baselineBody = '{}'
async function appWith(headSize?: number) {
  const app = await buildApp({
    config,
    database,
    kv,
    closeDatabase: false,
    logger: false,
    ...(headSize === undefined ? {} : { listingCache: { headSize } }),
  })
  app.get('/bench/bare', async (_request, reply) => reply.header('content-type', 'application/json').send(baselineBody))
  await app.ready()
  return app
}
/** As served: first pages from the cached head of their listing. */
const served = await appWith()
/** The database path: no cached head (anchors and totals stay cached, as they are between changes). */
const direct = await appWith(0)

type Result = { name: string; p50: number; p95: number; p99: number }

async function timed(app: FastifyInstance, url: string): Promise<number> {
  const started = performance.now()
  const res = await app.inject({ method: 'GET', url })
  const elapsed = performance.now() - started
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  return elapsed
}
function percentiles(name: string, times: number[]): Result {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { name, p50: at(0.5), p95: at(0.95), p99: at(0.99) }
}

const totalOf = async (query: string) =>
  (await served.inject({ method: 'GET', url: `/api/roles?${query}` })).json().data.total as number
const total = await totalOf('pageSize=24')
const tagTotal = await totalOf('tags=fantasy')
const deep = Math.max(1, Math.floor(total / 24 / 2))
const last = Math.max(1, Math.ceil(total / 24))
const tagDeep = Math.max(1, Math.floor(tagTotal / 24 / 2))
const tag50 = Math.min(50, Math.ceil(tagTotal / 24))
const scenarios: [string, string][] = [
  ['popularity, page 1', '/api/roles?sort=popularity'],
  ['popularity, page 3', '/api/roles?sort=popularity&page=3'],
  ['popularity, page 50', '/api/roles?sort=popularity&page=50'],
  [`popularity, page ${deep} (middle)`, `/api/roles?sort=popularity&page=${deep}`],
  [`popularity, page ${last} (last)`, `/api/roles?sort=popularity&page=${last}`],
  ['newest, page 1', '/api/roles?sort=newest'],
  ['newest, page 50', '/api/roles?sort=newest&page=50'],
  [`newest, page ${deep} (middle)`, `/api/roles?sort=newest&page=${deep}`],
  ['rating, page 1', '/api/roles?sort=rating'],
  ['rating, page 50', '/api/roles?sort=rating&page=50'],
  [`rating, page ${deep} (middle)`, `/api/roles?sort=rating&page=${deep}`],
  ['tag filter, page 1', '/api/roles?tags=fantasy'],
  [`tag filter, page ${tag50}`, `/api/roles?tags=fantasy&page=${tag50}`],
  [`tag filter, page ${tagDeep} (middle)`, `/api/roles?tags=fantasy&page=${tagDeep}`],
  [`tag filter, newest, page ${tag50}`, `/api/roles?tags=fantasy&sort=newest&page=${tag50}`],
  ['two tags, page 1', '/api/roles?tags=fantasy,romance'],
  ['search (rare word), page 1', '/api/roles?q=kari'],
  ['search (common word), page 1', '/api/roles?q=storm'],
  ['page size 100', '/api/roles?pageSize=100'],
]

type Row = Result & { ratio: number; baselineP50: number }
/**
 * Round robin: each round sends every scenario once (its bare-route twin just before it), so a
 * burst of load from elsewhere on a shared machine falls on all scenarios alike.
 */
async function run(app: FastifyInstance, label: string): Promise<Row[]> {
  console.log(`\n${label}`)
  const bodies: string[] = []
  for (const [, url] of scenarios) bodies.push((await app.inject({ method: 'GET', url })).body)
  const times = scenarios.map(() => ({ route: [] as number[], bare: [] as number[] }))
  for (let round = 0; round < WARMUP + REQUESTS; round++) {
    for (const [i, [, url]] of scenarios.entries()) {
      baselineBody = bodies[i] ?? '{}'
      const bare = await timed(app, '/bench/bare')
      const route = await timed(app, url)
      if (round >= WARMUP) {
        times[i]?.bare.push(bare)
        times[i]?.route.push(route)
      }
    }
  }
  return scenarios.map(([name], i) => {
    const result = percentiles(name, times[i]?.route ?? [])
    const baseline = percentiles('bare route, same bytes', times[i]?.bare ?? [])
    console.log(`  ${name}: p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms`)
    return { ...result, baselineP50: baseline.p50, ratio: result.p50 / baseline.p50 }
  })
}
const cold = await run(direct, 'database path (listing head not cached)')
const warm = await run(served, 'as served (first pages from the cached head)')

// The first request after a change: the version moves on, so the totals, the anchors and the head
// of that listing are computed again (once; the requests after it find them cached).
const afterChange: [string, string][] = [
  ['popularity, page 1', '/api/roles?sort=popularity'],
  [`popularity, page ${deep} (middle)`, `/api/roles?sort=popularity&page=${deep}`],
  [`rating, page ${deep} (middle)`, `/api/roles?sort=rating&page=${deep}`],
  [`tag filter, page ${tagDeep} (middle)`, `/api/roles?tags=fantasy&page=${tagDeep}`],
  ['search (rare word), page 1', '/api/roles?q=kari'],
  ['search (common word), page 1', '/api/roles?q=storm'],
]
const changed: { name: string; median: number; max: number; next: number }[] = []
for (const [name, url] of afterChange) {
  const firsts: number[] = []
  const nexts: number[] = []
  for (let i = 0; i < AFTER_CHANGE_REPEATS; i++) {
    await served.services.catalogue.invalidateListings()
    for (const list of [firsts, nexts]) {
      const started = performance.now()
      const res = await served.inject({ method: 'GET', url })
      list.push(performance.now() - started)
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`)
    }
  }
  firsts.sort((a, b) => a - b)
  nexts.sort((a, b) => a - b)
  const median = (list: number[]) => list[Math.floor(list.length / 2)] ?? 0
  changed.push({ name, median: median(firsts), max: firsts.at(-1) ?? 0, next: median(nexts) })
}
await served.close()
await direct.close()
await database.close()
await kv.close()

const fmt = (n: number) => n.toFixed(2)
const columns = ['scenario', 'p50 ms', 'p95 ms', 'p99 ms', 'bare route p50 ms', 'p50 ÷ bare', 'p95 ≤ 20 ms']
const rowsOf = (list: Row[]) =>
  list.map((r) => [
    r.name,
    fmt(r.p50),
    fmt(r.p95),
    fmt(r.p99),
    fmt(r.baselineP50),
    `${r.ratio.toFixed(1)}×`,
    r.p95 <= BUDGET_P95_MS ? 'yes' : '**no**',
  ])
const cpu = cpus()[0]?.model.trim() ?? 'cpu'
const machine = `${cpus().length} × ${cpu}, Node ${process.version}`
const engine = database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'
const intro = `${total.toLocaleString('en')} public roles (${ROLES.toLocaleString('en')} seeded), ${engine}, ${REQUESTS} requests each after ${WARMUP} warm-up, in-process (\`app.inject\`)`
const tables = [
  {
    caption: `Database path (listing head not cached; page anchors and totals cached, as between changes): ${intro}`,
    columns,
    rows: rowsOf(cold),
  },
  {
    caption: `As served (pages within the first 100 roles of a sort or single tag come from the cached head): ${intro}`,
    columns,
    rows: rowsOf(warm),
  },
  {
    caption: `First request after a change (totals, anchors and head computed again), median and worst of ${AFTER_CHANGE_REPEATS}, and the request after it`,
    columns: ['scenario', 'first, median ms', 'first, worst ms', 'next, median ms', 'first ÷ next'],
    rows: changed.map((c) => [c.name, fmt(c.median), fmt(c.max), fmt(c.next), `${(c.median / c.next).toFixed(1)}×`]),
  },
]
for (const table of tables) {
  console.log(`\n${table.caption}\n`)
  console.log(`| ${table.columns.join(' | ')} |`)
  console.log(`| ${table.columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`)
  for (const row of table.rows) console.log(`| ${row.join(' | ')} |`)
}
const worst = (list: Row[]) => list.reduce((a, b) => (b.p95 > a.p95 ? b : a))
const budgets = [
  { label: 'database path', row: worst(cold) },
  { label: 'as served', row: worst(warm) },
].map(({ label, row }) => ({
  name: `Role listing over ${ROLES.toLocaleString('en')} roles, ${engine}, ${label}: worst p95 of any page, sort, tag filter, search`,
  limit: `≤ ${BUDGET_P95_MS} ms`,
  value: `${fmt(row.p95)} ms (${row.name})`,
  met: row.p95 <= BUDGET_P95_MS,
  noisy: true,
}))
for (const b of budgets) console.log(`${b.name}: ${b.value} (budget ${b.limit}): ${b.met ? 'met' : 'NOT met'}`)

const result: BenchResult = {
  name: 'roles',
  title: `Role listing (\`npm run bench:roles\`), ${engine}`,
  date: new Date().toISOString(),
  machine,
  notes: [
    `GET /api/roles over ${total.toLocaleString('en')} public roles, ${engine}; server time measured in-process with \`app.inject\`, next to a bare route returning the same bytes.`,
    'Deep pages seek from the nearest page anchor (the sort key of every 1,000th role, cached per catalogue version) and skip fewer than 1,000 index entries.',
    'The database path bypasses the cached heads of listings; as served, pages within the first 100 roles of a sort or single tag come from the cache.',
    database.kind === 'postgres'
      ? 'PostgreSQL: VACUUM ANALYZE after the bulk load, as autovacuum does shortly after one.'
      : 'PGlite: VACUUM ANALYZE after the bulk load, as the server does at start and hourly (no autovacuum).',
    `Load average (1 min) at start and end: ${loadAtStart.toFixed(1)} and ${(loadavg()[0] ?? 0).toFixed(1)} on ${cpus().length} cores; p95 and p99 suffer first when other jobs share the machine.`,
  ],
  tables,
  budgets,
}
const outDir = path.resolve(import.meta.dirname, 'results')
mkdirSync(outDir, { recursive: true })
writeFileSync(path.join(outDir, 'roles.json'), `${JSON.stringify(result, null, 2)}\n`)
console.log(`\nwrote ${path.relative(process.cwd(), path.join(outDir, 'roles.json'))}`)
