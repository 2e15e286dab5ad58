import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

// Browser tests run the production build; build it once if this checkout has none yet.
export default function setup() {
  const root = path.resolve(import.meta.dirname, '..', '..')
  if (!existsSync(path.join(root, 'build', 'server', 'index.js'))) {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  }
}
