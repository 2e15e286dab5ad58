import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { type DatabaseHandle, openDatabase } from '#db/client.ts'

/**
 * A fresh, migrated database for one test file: an in-memory PGlite by default, or a throwaway
 * database on the PostgreSQL server of TEST_DATABASE_URL (dropped again on close).
 */
export async function openTestDatabase(): Promise<DatabaseHandle & { url: string | undefined }> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) {
    const handle = openDatabase({ dataDir: 'memory://' })
    await handle.migrate()
    return Object.assign(handle, { url: undefined })
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`)
  const url = withDatabase(serverUrl, name)
  const handle = openDatabase({ url, dataDir: 'unused' })
  await handle.migrate()
  const close = handle.close.bind(handle)
  return Object.assign(handle, {
    url,
    async close() {
      await close()
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  })
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

async function adminQuery(serverUrl: string, sql: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
