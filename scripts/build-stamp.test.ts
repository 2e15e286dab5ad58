import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BUILD_INPUTS, hashBuildInputs, isBuildCurrent, readStamp, removeStamp, writeStamp } from './build-stamp.ts'

const INPUTS = ['app', 'locales', 'vite.config.ts']

let root: string
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-stamp-'))
  mkdirSync(path.join(root, 'app', 'routes'), { recursive: true })
  mkdirSync(path.join(root, 'locales', 'en'), { recursive: true })
  writeFileSync(path.join(root, 'app', 'root.tsx'), 'export default 1')
  writeFileSync(path.join(root, 'app', 'routes', 'home.tsx'), 'export default 2')
  writeFileSync(path.join(root, 'locales', 'en', 'common.json'), '{"hello":"Hello"}')
  writeFileSync(path.join(root, 'vite.config.ts'), 'export default {}')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const write = (file: string, content: string) => writeFileSync(path.join(root, file), content)

describe('hash of the build inputs', () => {
  it('is the same for the same sources', () => {
    expect(hashBuildInputs(root, INPUTS)).toBe(hashBuildInputs(root, INPUTS))
    expect(hashBuildInputs(root, INPUTS)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('changes when a file is edited, added, removed or renamed, or a config file changes', () => {
    let previous = hashBuildInputs(root, INPUTS)
    const changed = (change: () => void) => {
      change()
      const hash = hashBuildInputs(root, INPUTS)
      expect(hash).not.toBe(previous)
      previous = hash
    }
    changed(() => write('app/root.tsx', 'export default 3'))
    changed(() => write('app/routes/new.tsx', 'export default 4'))
    changed(() => rmSync(path.join(root, 'app', 'routes', 'new.tsx')))
    changed(() => renameSync(path.join(root, 'app/routes/home.tsx'), path.join(root, 'app/routes/index.tsx')))
    changed(() => write('locales/en/common.json', '{"hello":"Hi"}'))
    changed(() => write('vite.config.ts', 'export default { build: {} }'))
  })

  it('ignores tests beside the code and files outside the inputs', () => {
    const before = hashBuildInputs(root, INPUTS)
    write('app/routes/home.test.tsx', 'it()')
    write('app/lib.test.ts', 'it()')
    mkdirSync(path.join(root, 'server'))
    write('server/index.ts', 'listen()')
    expect(hashBuildInputs(root, INPUTS)).toBe(before)
  })

  it('covers the app, what it imports and the build configuration', () => {
    for (const input of ['app', 'contracts', 'locales', 'public', 'vite.config.ts', 'package-lock.json']) {
      expect(BUILD_INPUTS).toContain(input)
    }
  })
})

describe('whether build/ is current', () => {
  const buildDir = () => path.join(root, 'build')
  const makeBuild = () => {
    mkdirSync(path.join(buildDir(), 'server'), { recursive: true })
    writeFileSync(path.join(buildDir(), 'server', 'index.js'), '')
  }
  const current = () => isBuildCurrent(root, buildDir(), INPUTS)

  it('is not without a build, or with a build that has no stamp', () => {
    expect(current()).toBe(false)
    makeBuild()
    expect(readStamp(buildDir())).toBeUndefined()
    expect(current()).toBe(false)
  })

  it('is when the stamp matches the sources, and no longer once they change', () => {
    makeBuild()
    writeStamp(buildDir(), hashBuildInputs(root, INPUTS))
    expect(current()).toBe(true)
    write('app/root.tsx', 'export default 5')
    expect(current()).toBe(false)
  })

  it('is not once the stamp is removed at the start of a build', () => {
    makeBuild()
    writeStamp(buildDir(), hashBuildInputs(root, INPUTS))
    removeStamp(buildDir())
    expect(current()).toBe(false)
  })

  it('is not when the bundles are gone but the stamp is left', () => {
    makeBuild()
    writeStamp(buildDir(), hashBuildInputs(root, INPUTS))
    rmSync(path.join(buildDir(), 'server'), { recursive: true })
    expect(current()).toBe(false)
  })
})
