import { defineConfig } from 'vitest/config'

// Two projects: fast unit + integration tests (app.inject against a fresh database per file), and
// browser tests that start the real built server and drive Chromium.
// CI asks for a JSON report too, to print one closing 'N passed, N failed' line (.ci/run).
const jsonReport = process.env.VITEST_JSON_REPORT

export default defineConfig({
  test: {
    reporters: jsonReport ? ['default', ['json', { outputFile: jsonReport }]] : ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['**/*.test.ts', '**/*.test.tsx'],
          exclude: ['node_modules/**', 'build/**', 'tests/e2e/**'],
          environment: 'node',
          setupFiles: ['tests/setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // expect.poll waits 1 s by default: too short on a loaded two-core CI machine.
          expect: { poll: { timeout: 10_000 } },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['tests/setup.ts'],
          globalSetup: ['tests/e2e/global-setup.ts'],
          // Generous: CI runs these beside the unit tests on two cores (see tests/e2e/browser.ts).
          testTimeout: 180_000,
          hookTimeout: 180_000,
          expect: { poll: { timeout: 10_000 } },
          // One Chromium at a time: the machine has two cores.
          fileParallelism: false,
        },
      },
    ],
  },
})
