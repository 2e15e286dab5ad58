// Adds up Vitest JSON reports into the one closing line CI reads: 'tests: N passed, N failed, N skipped'.
import { existsSync, readFileSync } from 'node:fs'

type Report = { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number }

let passed = 0
let failed = 0
let skipped = 0
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
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
