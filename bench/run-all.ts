// `npm run bench`: builds the production bundle, runs every benchmark one after the other (never in
// parallel: they would measure each other), then writes the results into docs/performance.md
// (between the bench markers) and docs/performance.json (for comparing runs).
// BENCH_QUICK=1 for a smoke run with small tables; BENCH_ONLY=api,roles to run some of them (the
// other sections keep their last results);
// BENCH_SKIP_BUILD=1 to reuse build/.
// A benchmark with a budget that depends on the machine's load (`noisy`) runs twice; such a budget
// is met only when both runs meet it. The load average around each run is printed and recorded.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import path from 'node:path'
import { type BenchResult, renderResults } from './lib/report.ts'

const root = path.resolve(import.meta.dirname, '..')
const BENCHES = ['pages', 'api', 'roles', 'growth', 'chat', 'memory'] as const
const scriptOf: Record<(typeof BENCHES)[number], string> = {
  pages: 'pages.ts',
  api: 'api.ts',
  roles: 'roles.ts',
  growth: 'growth.ts',
  chat: 'chat-overhead.ts',
  memory: 'memory.ts',
}
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const selected = BENCHES.filter((name) => !only || only.includes(name))

const started = Date.now()
const startLoad = loadavg()
console.log(`--- load average at start (1 / 5 / 15 min): ${startLoad.map((n) => n.toFixed(2)).join(' / ')}`)
const minutes = () => ((Date.now() - started) / 60_000).toFixed(1)

if (process.env.BENCH_SKIP_BUILD !== '1') {
  console.log('--- npm run build')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const failed: string[] = []
const timings: Record<string, number> = {}
const loads: Record<string, { before: number[]; after: number[] }[]> = {}
const resultFile = (name: string) => path.join(import.meta.dirname, 'results', `${name}.json`)
const readResult = (name: string) => JSON.parse(readFileSync(resultFile(name), 'utf8')) as BenchResult

/** Runs one benchmark; false when it failed or wrote no fresh result. */
function runBench(name: (typeof BENCHES)[number], label: string): boolean {
  const script = path.join(import.meta.dirname, scriptOf[name])
  const before = loadavg()
  console.log(`--- bench ${label} (${minutes()} min so far; load average ${before.map((n) => n.toFixed(2)).join(' ')})`)
  const t0 = Date.now()
  const run = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit', env: process.env })
  timings[label] = (Date.now() - t0) / 1000
  const after = loadavg()
  console.log(`--- bench ${label} done; load average ${after.map((n) => n.toFixed(2)).join(' ')}`)
  const list = loads[name] ?? []
  list.push({ before, after })
  loads[name] = list
  if (run.status !== 0) failed.push(label)
  return run.status === 0 && existsSync(resultFile(name)) && Date.parse(readResult(name).date) >= t0
}

/** The second run's noisy budgets joined to the first's: met only when both are. */
function checkedTwice(first: BenchResult, second: BenchResult): BenchResult {
  const budgets = first.budgets.map((b) => {
    if (!b.noisy) return b
    const again = second.budgets.find((s) => s.name === b.name)
    if (!again) return { ...b, met: false, value: `${b.value} · (missing in the second run)`, runs: 2 }
    return { ...b, value: `${b.value} · ${again.value}`, met: b.met && again.met, runs: 2 }
  })
  return { ...first, budgets }
}

// A partial run keeps the last full run's date and timings, and says what was run again.
const previousFile = path.join(root, 'docs', 'performance.json')
const previous =
  only && existsSync(previousFile)
    ? (JSON.parse(readFileSync(previousFile, 'utf8')) as {
        date: string
        seconds: number
        timings: Record<string, number>
        results?: BenchResult[]
      })
    : undefined

// Fresh results of what ran; for a partial run (BENCH_ONLY), the other sections keep the results
// recorded in docs/performance.json (each section shows its own date), not whatever a script run
// by hand last left in bench/results/.
const fresh = new Map<string, BenchResult>()
for (const name of selected) {
  if (!runBench(name, name)) {
    failed.push(`${name} (no fresh results)`)
    continue
  }
  const first = readResult(name)
  fresh.set(name, first)
  if (process.env.BENCH_QUICK === '1' || !first.budgets.some((b) => b.noisy)) continue
  if (runBench(name, `${name} (second run)`)) fresh.set(name, checkedTwice(first, readResult(name)))
  else fresh.set(name, checkedTwice(first, { ...first, budgets: [] }))
}
const results: BenchResult[] = []
for (const name of only ? BENCHES : selected) {
  const result = fresh.get(name)
  if (result) results.push({ ...result, load: loads[name] })
  else if (only && !selected.includes(name)) {
    const recorded = previous?.results?.find((r) => r.name === name)
    if (recorded) results.push(recorded)
    else if (existsSync(resultFile(name))) results.push(readResult(name))
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
const run = {
  date: previous?.date ?? new Date().toISOString(),
  machine,
  loadAtStart: previous ? undefined : startLoad,
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
