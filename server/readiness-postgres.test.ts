import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '#db/client.ts'
import { buildApp } from '#server/app.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { startTcpProxy } from '#tests/doubles/tcp-proxy.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

// A real network outage between the app and PostgreSQL, made by cutting a TCP proxy.
describe.skipIf(!process.env.TEST_DATABASE_URL)('readiness against PostgreSQL', () => {
  let testDb: Awaited<ReturnType<typeof openTestDatabase>>
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>
  beforeAll(async () => {
    testDb = await openTestDatabase()
    const target = new URL(testDb.url ?? '')
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  })
  afterAll(async () => {
    await proxy.close()
    await testDb.close()
  })

  it('fails /readyz while PostgreSQL is unreachable and recovers without a restart', async () => {
    const url = new URL(testDb.url ?? '')
    url.host = `${proxy.host}:${proxy.port}`
    const database = openDatabase({ url: url.toString(), dataDir: 'unused' })
    const app = await buildApp({
      config: loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://unused', JWT_SECRET: 'x'.repeat(40) }),
      database,
      kv: openKeyValueStore(undefined),
      closeDatabase: true,
      logger: false,
    })
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
      proxy.cut()
      const down = await app.inject({ method: 'GET', url: '/readyz' })
      expect(down.statusCode).toBe(503)
      expect(down.json().checks.database).toBe('failed')
      proxy.restore()
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})
