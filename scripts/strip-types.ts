// The server's TypeScript with its types stripped ahead of time, for `npm start`
// (docs/decisions/070-server-runs-stripped-ahead.md). Node strips a `.ts` file's types as it loads
// it, with a WebAssembly compiler that stays in the process: 20–30 MiB of the idle server's RSS,
// for its whole life. `npm run build` writes the same output here instead, once per file
// content; server/stripped-ts.mjs hands it to Node at start, and Node never loads its stripper.
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { stripTypeScriptTypes } from 'node:module'
import path from 'node:path'

/** Folders never loaded by the server (or rebuilt, or not ours). */
const SKIPPED = new Set(['node_modules', 'build', 'coverage', 'data', 'tests'])

/** The name of a file's stripped twin: the SHA-256 of its content, so a changed file never matches. */
export const strippedName = (source: Buffer | string) => `${createHash('sha256').update(source).digest('hex')}.js`

/** Every `.ts` file under `root` the server may load: not tests, declarations, or the folders above. */
function typeScriptFiles(root: string): string[] {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(full)
      }
    }
  }
  walk(root)
  return files
}

/**
 * Writes the stripped twin of every server-side `.ts` file under `root` into `outDir`, each
 * written whole under a temporary name and then renamed, so a server starting at the same moment
 * never reads half a file. Twins of files that no longer exist are removed; one a running server
 * still asks for is then stripped by Node as before. A file Node cannot strip is left to Node,
 * which reports it as it would have.
 */
export function writeStrippedSources(root: string, outDir: string): { written: number; kept: number } {
  mkdirSync(outDir, { recursive: true })
  const wanted = new Set<string>()
  let written = 0
  const existing = new Set(readdirSync(outDir))
  for (const file of typeScriptFiles(root)) {
    const source = readFileSync(file)
    const name = strippedName(source)
    // Already there: a start with nothing changed strips nothing (and never loads the stripper).
    if (existing.has(name)) {
      wanted.add(name)
      continue
    }
    let output: string
    try {
      output = stripTypeScriptTypes(source.toString('utf8'), { mode: 'strip' })
    } catch {
      continue
    }
    wanted.add(name)
    const temporary = path.join(outDir, `.${name}.${process.pid}`)
    writeFileSync(temporary, output)
    renameSync(temporary, path.join(outDir, name))
    written++
  }
  for (const name of existing) if (!wanted.has(name)) rmSync(path.join(outDir, name), { force: true })
  return { written, kept: wanted.size - written }
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..')
  const { written, kept } = writeStrippedSources(root, path.join(root, 'build', 'stripped'))
  console.info(`build/stripped: ${written} files stripped, ${kept} unchanged`)
}
