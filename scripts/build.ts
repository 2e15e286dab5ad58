// `npm run build`: the production build of the app into build/, its precompressed twins, the
// hash of the sources it was made from (scripts/build-stamp.ts), and the server's files with their
// types stripped (scripts/strip-types.ts).
// `--if-stale` (used by `npm start` and the browser tests' setup) skips all of it when build/ was
// made from the sources as they are now, so a restart takes seconds instead of a minute.
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { hashBuildInputs, isBuildCurrent, removeStamp, writeStamp } from './build-stamp.ts'

const root = path.resolve(import.meta.dirname, '..')
const buildDir = path.join(root, 'build')

if (process.argv.includes('--if-stale') && isBuildCurrent(root, buildDir)) {
  console.info('build/ matches the sources: not rebuilding')
} else {
  // Hashed before building: a file edited while the build runs makes the next start rebuild.
  const hash = hashBuildInputs(root)
  removeStamp(buildDir)
  // Always a production build, whoever calls it: under Vitest NODE_ENV is `test`, and Vite would
  // then bundle React's development build (about 40 kB more JavaScript on every page).
  const env = { ...process.env, NODE_ENV: 'production' }
  const cli = path.join(root, 'node_modules', '@react-router', 'dev', 'bin.cjs')
  execFileSync(process.execPath, [cli, 'build'], { cwd: root, env, stdio: 'inherit' })
  execFileSync(process.execPath, [path.join(root, 'scripts', 'compress-assets.ts')], {
    cwd: root,
    env,
    stdio: 'inherit',
  })
  writeStamp(buildDir, hash)
}
// The server's files with their types stripped (ADR 070): a second or less, so done on every start
// and always current. Node calls its stripper experimental; the warning is for this one child.
// Without them (a read-only folder, say) the server starts all the same and strips them itself.
try {
  execFileSync(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', path.join(root, 'scripts', 'strip-types.ts')],
    { cwd: root, stdio: 'inherit' },
  )
} catch (error) {
  console.warn(`build/stripped not written (${(error as Error).message}): Node will strip the server's files itself`)
}
