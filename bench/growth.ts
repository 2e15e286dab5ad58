// Does a page cost what the page holds, or what the table holds? Role listing at 1,000, 10,000 and
// 100,000 roles (a first page, page 50, a page in the middle, a tag filter) and a chat's messages
// (the newest page and a page deep in its history) at 10,000, 100,000 and 1,000,000 messages in the
// table, each next to the same request at the smallest size (the baseline of this run).
// Tables grow with set-based SQL (insert ... select from generate_series), so a run takes minutes.
// `npm run bench:growth` (PGlite); DATABASE_URL=postgres://... for PostgreSQL (a database of its own
// is created on that server and dropped at the end); BENCH_QUICK=1 for a smoke run (sizes ÷ 10).
// Writes bench/results/growth.json (see bench/lib/report.ts).
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { type SQL, sql } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { buildApp } from '#server/app.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { readSeedTags } from '#server/modules/catalogue/demo-content.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import type { BenchResult } from './lib/report.ts'
import { openScratchDatabase } from './lib/scratch-database.ts'
import { benchEmail, seedBenchSessions, seedBenchUsers, seedMessages } from './lib/seed-large.ts'

const QUICK = process.env.BENCH_QUICK === '1'
const loadAtStart = loadavg()[0] ?? 0
const ROLE_SIZES = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000]
const MESSAGE_SIZES = QUICK ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
const REQUESTS = Number(process.env.REQUESTS ?? (QUICK ? 30 : 150))
const WARMUP = QUICK ? 5 : 15
/** Listing pages of 20: page 50 is the last page at 1,000 roles, so it exists at every size. */
const PAGE_SIZE = 20
/** The measured chat: this long at every size; the other messages belong to other chats. */
const SESSION_MESSAGES = 2_000
const FILLER_PER_SESSION = 250
/** The users the other chats belong to (the first of them holds the measured chat). */
const USERS = 100
const GROWTH_LIMIT = 2

const started = performance.now()
const database = await openScratchDatabase('growth')
const { db, dataDir } = database
const engine = database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'
const rowsOf = async <T>(query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows
const countOf = async (table: string) =>
  Number((await rowsOf<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]?.n ?? 0)
/** What autovacuum does on PostgreSQL and the server does on PGlite: statistics and visibility map. */
const settle = async () =>
  database.kind === 'postgres' ? void (await db.execute(sql`VACUUM ANALYZE`)) : database.analyze()
const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`

await createTags(db, readSeedTags())

const kv = openKeyValueStore(undefined)
const app = await buildApp({
  config: loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: 'g'.repeat(48),
    LOG_LEVEL: 'silent',
    LLM_BASE_URL: 'http://127.0.0.1:9/v1',
  }),
  database,
  kv,
  closeDatabase: false,
  logger: false,
  // The database path: no cached heads, so page 1 is a query at every size too.
  listingCache: { headSize: 0 },
})
await app.ready()

type Measured = { p50: number; p95: number }
/** Each request of `requests` in turn (round robin), so load from other jobs falls on all alike. */
async function measure(requests: InjectOptions[]): Promise<Measured[]> {
  const times = requests.map(() => [] as number[])
  for (let round = 0; round < WARMUP + REQUESTS; round++) {
    for (const [i, request] of requests.entries()) {
      const t0 = performance.now()
      const res = await app.inject(request)
      const elapsed = performance.now() - t0
      if (res.statusCode !== 200) throw new Error(`${request.url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
      if (round >= WARMUP) times[i]?.push(elapsed)
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b)
    const at = (q: number) => list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? 0
    return { p50: at(0.5), p95: at(0.95) }
  })
}
function record(group: string, size: number, scenarios: string[], measured: Measured[]) {
  for (const [i, scenario] of scenarios.entries()) {
    const result = measured[i] ?? { p50: 0, p95: 0 }
    results.push({ group, scenario, size, result })
    console.log(`  ${scenario}: p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms`)
  }
}

/** Adds generated public roles (ids, keys and tags spread by multiplicative hashing) up to `target`. */
async function growRoles(target: number) {
  const from = (await countOf('roles')) + 1
  const before = Number((await rowsOf<{ id: number }>(sql`select coalesce(max(id), 0) as id from roles`))[0]?.id ?? 0)
  await db.execute(sql`
    insert into roles (public_id, name, introduction, search_text, popularity, chat_count, created_at, is_adult)
    select 'growth-' || g, 'Role ' || g, 'A generated character, number ' || g || ', for the growth benchmark.',
           'Role ' || g, (g * 7919) % 100003, (g * 31) % 5000,
           timestamptz '2026-01-01' - ((g::bigint * 104729) % 31536000) * interval '1 second', g % 20 = 0
      from generate_series(${from}::int, ${target}::int) as g`)
  // Two tags each (one when both picks agree); the trigger copies the listing keys into role_tags.
  for (const spread of [1, 7]) {
    await db.execute(sql`
      insert into role_tags (role_id, tag_id)
      select r.id, t.ids[1 + (r.id / ${spread}) % array_length(t.ids, 1)]
        from roles r, (select array_agg(id order by id) as ids from tags) t
       where r.id > ${before}
      on conflict do nothing`)
  }
  await settle()
}

type Row = { group: string; scenario: string; size: number; result: Measured }
const results: Row[] = []

// Role listing.
const [firstTag] = readSeedTags()
for (const size of ROLE_SIZES) {
  const t0 = performance.now()
  await growRoles(size)
  const middle = Math.max(1, Math.floor(size / PAGE_SIZE / 2))
  console.log(`roles: ${size.toLocaleString('en')} (grown in ${seconds(t0)})`)
  const scenarios: [string, string][] = [
    ['popularity, page 1', `sort=popularity&page=1`],
    ['popularity, page 50', `sort=popularity&page=50`],
    ['popularity, middle page', `sort=popularity&page=${middle}`],
    [`tag filter (${firstTag?.slug}), page 1`, `tags=${firstTag?.slug}&page=1`],
  ]
  const measured = await measure(
    scenarios.map(([, query]) => ({ method: 'GET', url: `/api/roles?pageSize=${PAGE_SIZE}&${query}` })),
  )
  record(
    'listing',
    size,
    scenarios.map(([scenario]) => scenario),
    measured,
  )
}

// A chat's messages (users, the measured chat's history and the other chats: bench/lib/seed-large.ts).
await seedBenchUsers(db, USERS)
const userId = (await rowsOf<{ id: string }>(sql`select id from users where email = ${benchEmail(1)}`))[0]?.id ?? ''
const token = await app.accessTokens.issue({ userId })
const rolePublicId = await createRole(db, { name: 'Growth Host', firstMessage: 'Hello.' })
const created = await app.inject({
  method: 'POST',
  url: '/api/createSession',
  headers: { authorization: `Bearer ${token}` },
  payload: { roleId: rolePublicId },
})
if (created.statusCode !== 200) throw new Error(`createSession: ${created.statusCode} ${created.body}`)
const sessionId = created.json().data.id as string
await seedMessages(db, [sessionId], SESSION_MESSAGES - 1)
const history = await rowsOf<{ id: number }>(
  sql`select id from chat_messages where session_id = ${sessionId} order by id desc offset ${Math.floor(SESSION_MESSAGES / 2)} limit 1`,
)
const deepBefore = Number(history[0]?.id)

for (const size of MESSAGE_SIZES) {
  const t0 = performance.now()
  const missing = size - (await countOf('chat_messages'))
  if (missing > 0) {
    // Other users' chats, their messages interleaved in time as they would be; the last one shorter.
    const ids = await seedBenchSessions(db, Math.ceil(missing / FILLER_PER_SESSION))
    const full = Math.floor(missing / FILLER_PER_SESSION)
    await seedMessages(db, ids.slice(0, full), FILLER_PER_SESSION, { interleaved: true })
    await seedMessages(db, ids.slice(full), missing - full * FILLER_PER_SESSION)
  }
  await settle()
  console.log(`messages: ${(await countOf('chat_messages')).toLocaleString('en')} (grown in ${seconds(t0)})`)
  const scenarios: [string, Record<string, unknown>][] = [
    ['newest page (50)', { sessionId }],
    [
      `page deep in history (50 before message ${SESSION_MESSAGES / 2} of ${SESSION_MESSAGES})`,
      { sessionId, before: deepBefore },
    ],
  ]
  const measured = await measure(
    scenarios.map(([, payload]) => ({
      method: 'POST',
      url: '/api/messages',
      headers: { authorization: `Bearer ${token}` },
      payload,
    })),
  )
  record(
    'messages',
    size,
    scenarios.map(([scenario]) => scenario),
    measured,
  )
}
await app.close()
await database.close()
await kv.close()

const fmt = (n: number) => n.toFixed(2)
const baselineOf = (row: Row) =>
  results.find((r) => r.group === row.group && r.scenario === row.scenario)?.result.p50 ?? row.result.p50
const tableOf = (group: string, unit: string) => ({
  caption:
    group === 'listing'
      ? `GET /api/roles (pages of ${PAGE_SIZE}, database path: no cached heads), ${engine}: p50 at each size ÷ p50 at the smallest`
      : `POST /api/messages of one chat (${SESSION_MESSAGES.toLocaleString('en')} messages; the rest belong to other chats), ${engine}: p50 at each size ÷ p50 at the smallest`,
  columns: ['scenario', unit, 'p50 ms', 'p95 ms', 'p50 ÷ smallest size'],
  rows: results
    .filter((r) => r.group === group)
    .map((r) => [
      r.scenario,
      r.size.toLocaleString('en'),
      fmt(r.result.p50),
      fmt(r.result.p95),
      `${(r.result.p50 / baselineOf(r)).toFixed(2)}×`,
    ]),
})
const tables = [tableOf('listing', 'roles'), tableOf('messages', 'messages in the table')]
for (const table of tables) {
  console.log(`\n${table.caption}\n`)
  console.log(`| ${table.columns.join(' | ')} |`)
  console.log(`| ${table.columns.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`)
  for (const row of table.rows) console.log(`| ${row.join(' | ')} |`)
}

const largest = (group: string) => {
  const sizes = results.filter((r) => r.group === group).map((r) => r.size)
  return results.filter((r) => r.group === group && r.size === Math.max(...sizes))
}
const worstRatio = (group: string) =>
  largest(group).reduce(
    (worst, r) => {
      const ratio = r.result.p50 / baselineOf(r)
      return ratio > worst.ratio ? { ratio, scenario: r.scenario } : worst
    },
    { ratio: 0, scenario: '' },
  )
// The p95 budget itself is checked by bench/roles.ts (more scenarios, more requests).
const budgets = (['listing', 'messages'] as const).map((group) => {
  const worst = worstRatio(group)
  const sizes = results.filter((r) => r.group === group).map((r) => r.size)
  return {
    name: `${group === 'listing' ? 'Listing' : 'Messages'} cost follows the page, not the table: p50 at ${(Math.max(...sizes) / Math.min(...sizes)).toLocaleString('en')}× the rows ÷ p50 at the smallest size, ${engine}`,
    limit: `≤ ${GROWTH_LIMIT}×`,
    value: `${worst.ratio.toFixed(2)}× (${worst.scenario})`,
    met: worst.ratio <= GROWTH_LIMIT,
    noisy: true,
  }
})
for (const b of budgets) console.log(`${b.name}: ${b.value} (limit ${b.limit}): ${b.met ? 'met' : 'NOT met'}`)

const outDir = path.resolve(import.meta.dirname, 'results')
mkdirSync(outDir, { recursive: true })
const result: BenchResult = {
  name: 'growth',
  title: `Growth: cost per page as tables grow (\`npm run bench:growth\`), ${engine}`,
  date: new Date().toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`,
  notes: [
    `Tables grown with set-based SQL, then VACUUM ANALYZE; ${REQUESTS} requests per figure after ${WARMUP} warm-up, in-process (\`app.inject\`); ${engine}.`,
    'Listing: deep pages seek from the nearest page anchor (every 1,000th role), so the middle page costs about what page 50 does.',
    `Messages: keyset pages on the (session, id) index; the chat's ${SESSION_MESSAGES.toLocaleString('en')} messages stay the same while other chats fill the table.`,
    `Run took ${seconds(started)}; load average (1 min) at start and end: ${loadAtStart.toFixed(1)} and ${(loadavg()[0] ?? 0).toFixed(1)} on ${cpus().length} cores.`,
  ],
  tables,
  budgets,
}
writeFileSync(path.join(outDir, 'growth.json'), `${JSON.stringify(result, null, 2)}\n`)
console.log(`\nwrote ${path.relative(process.cwd(), path.join(outDir, 'growth.json'))} (${seconds(started)})`)
