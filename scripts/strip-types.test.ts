import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { strippedName, writeStrippedSources } from './strip-types.ts'

const HOOK = path.resolve(import.meta.dirname, '..', 'server', 'stripped-ts.mjs')

describe('the server run from types stripped ahead of time (ADR 070)', () => {
  let root: string
  let out: string
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }
  /** Runs `server/main.ts` of the scratch project as `npm start` does; what it printed. */
  const start = () =>
    execFileSync(process.execPath, ['--import=./server/stripped-ts.mjs', 'server/main.ts'], {
      cwd: root,
      encoding: 'utf8',
    }).trim()

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'rp-strip-'))
    out = path.join(root, 'build', 'stripped')
    // The hook as shipped, at the same place relative to build/.
    mkdirSync(path.join(root, 'server'))
    copyFileSync(HOOK, path.join(root, 'server', 'stripped-ts.mjs'))
    write('package.json', JSON.stringify({ type: 'module' }))
    write(
      'server/main.ts',
      [
        "import type { Greeting } from './greeting.ts'",
        "import { greet } from './greeting.ts'",
        "const who: string = 'reader'",
        'const line: Greeting = greet(who)',
        "const stripper = process.moduleLoadList.some((m: string) => m.includes('amaro'))",
        'console.log(line, stripper ? "stripped by node" : "stripped ahead")',
      ].join('\n'),
    )
    write(
      'server/greeting.ts',
      "export type Greeting = string\nexport const greet = (who: string): Greeting => 'hello ' + who\n",
    )
    write('server/main.test.ts', 'const skipped: number = 1\n')
    write('tests/helper.ts', 'export const skipped: number = 1\n')
    write('node_modules/dep/index.ts', 'export const skipped: number = 1\n')
    // Node cannot strip an enum (it would have to write code): left to Node, which says so.
    write('server/colour.ts', 'export enum Colour { Red }\n')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it("writes each server file's stripped twin once, named by its content, and drops stale ones", () => {
    expect(writeStrippedSources(root, out)).toEqual({ written: 2, kept: 0 })
    const main = readFileSync(path.join(root, 'server', 'main.ts'))
    const twin = readFileSync(path.join(out, strippedName(main)), 'utf8')
    expect(twin).toContain("const who         = 'reader'")
    expect(twin).not.toContain('import type')
    // Same line and column for every statement: stack traces point into the .ts file.
    expect(twin.split('\n')).toHaveLength(main.toString().split('\n').length)
    expect(readdirSync(out).sort()).toEqual(
      [strippedName(main), strippedName(readFileSync(path.join(root, 'server', 'greeting.ts')))].sort(),
    )

    expect(writeStrippedSources(root, out)).toEqual({ written: 0, kept: 2 })
    write('server/greeting.ts', "export const greet = (who: string) => 'hi ' + who\n")
    expect(writeStrippedSources(root, out)).toEqual({ written: 1, kept: 1 })
    expect(readdirSync(out)).toHaveLength(2)
  })

  it("starts without loading Node's stripper, and falls back to it for a file edited since", () => {
    writeStrippedSources(root, out)
    expect(start()).toBe('hello reader stripped ahead')

    // Edited after the build: its twin no longer matches, so Node strips it as before.
    write(
      'server/greeting.ts',
      "export type Greeting = string\nexport const greet = (who: string): Greeting => 'hi ' + who\n",
    )
    expect(start()).toBe('hi reader stripped by node')
  })
})
