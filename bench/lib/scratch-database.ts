// A database of the benchmark's own: PGlite in a temporary folder by default; with DATABASE_URL, a
// fresh database `bench_<name>_scratch` created on that PostgreSQL server and dropped again on
// close (or by the next run, if this one failed), so benchmarks run one after the other against
// the same server never see each other's rows.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { type DatabaseHandle, openDatabase } from '#db/client.ts'
import { withDatabase } from '#tests/helpers/test-database.ts'

async function admin(serverUrl: string, statement: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Opens and migrates the benchmark's database; `close()` also deletes it (folder or database). */
export async function openScratchDatabase(name: string): Promise<DatabaseHandle & { dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `rp-${name}-`))
  const serverUrl = process.env.DATABASE_URL
  if (!serverUrl) {
    const database = openDatabase({ dataDir })
    await database.migrate()
    const close = database.close.bind(database)
    return Object.assign(database, {
      dataDir,
      async close() {
        await close()
        rmSync(dataDir, { recursive: true, force: true })
      },
    })
  }
  const scratch = `bench_${name}_scratch`
  await admin(serverUrl, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`)
  await admin(serverUrl, `CREATE DATABASE "${scratch}"`)
  const database = openDatabase({ url: withDatabase(serverUrl, scratch), dataDir, queryTimeoutMs: 0 })
  await database.migrate()
  const close = database.close.bind(database)
  return Object.assign(database, {
    dataDir,
    async close() {
      await close()
      await admin(serverUrl, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`)
      rmSync(dataDir, { recursive: true, force: true })
    },
  })
}
