// Tells whether `build/` was made from the sources as they are now, so `npm start` and the browser
// tests' setup rebuild only when something the bundles are made of changed (a build takes about a
// minute on two cores; reading and hashing the inputs, a fraction of a second).
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * What `npm run build` reads: the app and what it imports (contracts, translations, static files),
 * the build configuration and scripts, and the installed dependency versions. Server code is not in
 * the bundles (the server runs from source), so it is not here.
 */
export const BUILD_INPUTS = [
  'app',
  'contracts',
  'locales',
  'public',
  'vite.config.ts',
  'react-router.config.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/build.ts',
  'scripts/build-stamp.ts',
  'scripts/compress-assets.ts',
]

/** Tests beside the code are never bundled: editing one must not cost a rebuild. */
const NOT_BUNDLED = /\.test\.tsx?$/

/** The stamp sits beside the bundles, outside build/client and build/server that Vite empties. */
export const STAMP_FILE = '.source-hash'

function filesOf(root: string, input: string): string[] {
  const full = path.join(root, input)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [input]
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !NOT_BUNDLED.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
}

/**
 * One hash over the path and content of every input file, in a fixed order, so it changes when a
 * file is edited, added, removed or renamed, and only then. Paths use `/` on every platform.
 */
export function hashBuildInputs(root: string, inputs: readonly string[] = BUILD_INPUTS): string {
  const files = inputs.flatMap((input) => filesOf(root, input).map((file) => file.split(path.sep).join('/')))
  const hash = createHash('sha256')
  for (const file of [...new Set(files)].sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(root, file)))
      .update('\0')
  }
  return hash.digest('hex')
}

/** The hash the build in `buildDir` was made from, or undefined when it has none (or no build). */
export function readStamp(buildDir: string): string | undefined {
  const file = path.join(buildDir, STAMP_FILE)
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}

export function writeStamp(buildDir: string, hash: string) {
  writeFileSync(path.join(buildDir, STAMP_FILE), `${hash}\n`)
}

/** Removed before a build starts, so a build that fails half-way is never taken for current. */
export function removeStamp(buildDir: string) {
  rmSync(path.join(buildDir, STAMP_FILE), { force: true })
}

/** True when `buildDir` holds a complete build made from the inputs as they are now. */
export function isBuildCurrent(
  root: string,
  buildDir = path.join(root, 'build'),
  inputs: readonly string[] = BUILD_INPUTS,
): boolean {
  if (!existsSync(path.join(buildDir, 'server', 'index.js'))) return false
  const stamp = readStamp(buildDir)
  return stamp !== undefined && stamp === hashBuildInputs(root, inputs)
}
