import { afterEach, beforeEach, vi } from 'vitest'

// A test that makes the code log an error fails unless it expects it (epic-stack's rule):
// an unexpected console.error is a bug the assertions did not catch.
let errors: unknown[][] = []
beforeEach(() => {
  errors = []
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    errors.push(args)
  })
})
afterEach(() => {
  vi.restoreAllMocks()
  if (errors.length > 0) {
    const first = errors[0]?.map((a) => (a instanceof Error ? a.stack : String(a))).join(' ')
    throw new Error(`console.error was called ${errors.length} time(s); first: ${first}`)
  }
})
