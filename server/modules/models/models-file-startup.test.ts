import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildApp } from '#server/app.ts'
import { ConfigError, loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { ModelsFileError } from './models.ts'

const bad = () =>
  writeModelsFile([
    { id: 'paid', name: 'Paid', premium: true, diamondsPerMessage: 0, contextTokens: 8192 },
    { id: 'paid', name: 'Again', premium: false, contextTokens: 8192 },
  ])

describe('a bad MODELS_FILE stops the start', () => {
  it('the app is not built', async () => {
    const database = await openTestDatabase()
    try {
      const config = loadConfig({
        NODE_ENV: 'test',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'rp-start-')),
        JWT_SECRET: 'x'.repeat(48),
        MODELS_FILE: bad(),
      })
      const failure = await buildApp({ config, database, kv: openKeyValueStore(undefined), logger: false }).catch(
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(ModelsFileError)
      expect(failure).toBeInstanceOf(ConfigError)
    } finally {
      await database.close()
    }
  })

  it('the server exits with the configuration exit code, naming the problems, before opening anything', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-start-'))
    const child = spawn(process.execPath, ['server/index.ts'], {
      cwd: path.resolve(import.meta.dirname, '..', '..', '..'),
      env: { ...process.env, NODE_ENV: 'development', DATA_DIR: dataDir, MODELS_FILE: bad(), PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code).toBe(78)
    expect(stderr).toContain('MODELS_FILE')
    expect(stderr).toContain('a premium model must cost at least 1 diamond per message')
    expect(stderr).toContain('duplicate id "paid"')
  })
})
