import { execFileSync } from 'node:child_process'
import path from 'node:path'

// Browser tests run the production build of the sources as they are: build it when build/ is
// missing or was made from other sources (scripts/build.ts forces NODE_ENV=production, which
// Vitest's `test` would otherwise turn into React's development bundle).
export default function setup() {
  const root = path.resolve(import.meta.dirname, '..', '..')
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.ts'), '--if-stale'], {
    cwd: root,
    stdio: 'inherit',
  })
}
