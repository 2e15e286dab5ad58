// `npm run bench`: builds the production bundle, runs every benchmark one after the other (never in
// parallel: they would measure each other), then writes the results into docs/performance.md
// (between the bench markers) and docs/performance.json (for comparing runs).
// BENCH_QUICK=1 for a smoke run with small tables; BENCH_ONLY=api,roles to run some of them (the
// other sections keep their last results);
// BENCH_SKIP_BUILD=1 to reuse build/.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import path from 'node:path'
import { type BenchResult, renderResults } from './lib/report.ts'

const root = path.resolve(import.meta.dirname, '..')
const BENCHES = ['pages', 'api', 'roles', 'growth', 'chat'] as const
const scriptOf: Record<(typeof BENCHES)[number], string> = {
  pages: 'pages.ts',
  api: 'api.ts',
  roles: 'roles.ts',
  growth: 'growth.ts',
  chat: 'chat-overhead.ts',
}
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const selected = BENCHES.filter((name) => !only || only.includes(name))

const started = Date.now()
const minutes = () => ((Date.now() - started) / 60_000).toFixed(1)

if (process.env.BENCH_SKIP_BUILD !== '1') {
  console.log('--- npm run build')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const failed: string[] = []
const timings: Record<string, number> = {}
for (const name of selected) {
  const script = path.join(import.meta.dirname, scriptOf[name])
  console.log(`--- bench ${name} (${minutes()} min so far)`)
  const t0 = Date.now()
  const run = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit', env: process.env })
  timings[name] = (Date.now() - t0) / 1000
  if (run.status !== 0) failed.push(name)
}

// Fresh results of what ran; for a partial run (BENCH_ONLY), the other sections keep their last
// results (each section shows its own date).
const results: BenchResult[] = []
for (const name of only ? BENCHES : selected) {
  const file = path.join(import.meta.dirname, 'results', `${name}.json`)
  if (!existsSync(file)) continue
  const result = JSON.parse(readFileSync(file, 'utf8')) as BenchResult
  const fresh = Date.parse(result.date) >= started
  if (fresh || (only && !selected.includes(name))) results.push(result)
  else failed.push(`${name} (no fresh results)`)
}

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
// A partial run keeps the last full run's date and timings, and says what was run again.
const previousFile = path.join(root, 'docs', 'performance.json')
const previous =
  only && existsSync(previousFile)
    ? (JSON.parse(readFileSync(previousFile, 'utf8')) as {
        date: string
        seconds: number
        timings: Record<string, number>
      })
    : undefined
const run = {
  date: previous?.date ?? new Date().toISOString(),
  machine,
  quick: process.env.BENCH_QUICK === '1',
  seconds: previous?.seconds ?? Math.round((Date.now() - started) / 1000),
  timings: { ...previous?.timings, ...timings },
  rerun: only ? { date: new Date().toISOString(), benches: selected } : undefined,
  results,
}

if (!run.quick) {
  writeFileSync(path.join(root, 'docs', 'performance.json'), `${JSON.stringify(run, null, 2)}\n`)
  const docFile = path.join(root, 'docs', 'performance.md')
  const doc = readFileSync(docFile, 'utf8')
  const START = '<!-- bench:results:start -->'
  const END = '<!-- bench:results:end -->'
  const from = doc.indexOf(START)
  const to = doc.indexOf(END)
  if (from < 0 || to < from) throw new Error(`docs/performance.md has no ${START} ... ${END} section`)
  const body = renderResults(run)
  writeFileSync(docFile, `${doc.slice(0, from + START.length)}\n${body}\n${doc.slice(to)}`)
  console.log('written docs/performance.md and docs/performance.json')
} else {
  writeFileSync(path.join(import.meta.dirname, 'results', 'last-run.md'), renderResults(run))
  console.log('quick run: written bench/results/last-run.md (docs untouched)')
}

const unmet = results.flatMap((r) => r.budgets.filter((b) => !b.met).map((b) => `${r.name}: ${b.name}`))
console.log(`--- done in ${minutes()} min; budgets not met: ${unmet.length ? unmet.join('; ') : 'none'}`)
if (failed.length) {
  console.error(`benchmarks that failed: ${failed.join(', ')}`)
  process.exit(1)
}
