// Adds up Vitest JSON reports into the one closing line CI reads: 'tests: N passed, N failed, N skipped'.
// The failed tests are named just above that line, so the tail of a CI log says what broke.
import { existsSync, readFileSync } from 'node:fs'
import { relative } from 'node:path'

type Assertion = { fullName: string; status: string; failureMessages?: string[] }
type Report = {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests: number
  testResults?: { name: string; status: string; message?: string; assertionResults?: Assertion[] }[]
}

let passed = 0
let failed = 0
let skipped = 0
const failures: string[] = []
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`no test report at ${file}`)
    failed += 1
    continue
  }
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
  for (const suite of report.testResults ?? []) {
    const where = relative(process.cwd(), suite.name)
    const broken = (suite.assertionResults ?? []).filter((test) => test.status === 'failed')
    for (const test of broken) {
      const why = (test.failureMessages?.[0] ?? '').split('\n')[0]?.slice(0, 200)
      failures.push(`FAILED ${where} > ${test.fullName}${why ? `: ${why}` : ''}`)
    }
    if (broken.length === 0 && suite.status === 'failed')
      failures.push(`FAILED ${where}: ${(suite.message ?? '').split('\n')[0]?.slice(0, 200)}`)
  }
}
for (const line of failures) console.log(line)
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
