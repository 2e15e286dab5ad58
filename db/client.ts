import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres'
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import * as schema from './schema/index.ts'

export type Schema = typeof schema
/** The Drizzle client repos use; the same type whichever engine is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>

export type DatabaseHandle = {
  db: Db
  kind: 'pglite' | 'postgres'
  /** Applies the SQL migrations in `db/migrations` (idempotent; serialised across instances). */
  migrate(): Promise<void>
  /**
   * Refreshes the planner's statistics. PostgreSQL's autovacuum does this by itself; PGlite has no
   * background workers, so the app runs it after bulk loads and from time to time. On PGlite it
   * also vacuums, which is what autovacuum would do too: the visibility map it sets lets
   * index-only scans skip the table (a listing page 2,083 deep took 97 ms without it, 5 ms with
   * it, over 100,000 roles).
   */
  analyze(): Promise<void>
  /** Resolves when the database answers a query within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

export const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

// Any constant works; it only has to be the same for every instance of the app.
const MIGRATION_LOCK_ID = 7_304_211

export type DatabaseOptions = {
  /** A postgres:// URL; without it the embedded PGlite is used. */
  url?: string | undefined
  /** Where PGlite keeps its files; `memory://` keeps them in memory (tests). */
  dataDir: string
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  return options.url ? openPostgres(options.url) : openPglite(options.dataDir)
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  })
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  const db = drizzleNodePg(pool, { schema }) as unknown as Db
  let closed = false
  return {
    db,
    kind: 'postgres',
    async migrate() {
      const client = await pool.connect()
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
        try {
          await migrateNodePg(drizzleNodePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER })
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID])
        }
      } finally {
        client.release()
      }
    },
    async analyze() {
      await pool.query('ANALYZE')
    },
    async ping(timeoutMs = 2_000) {
      await withTimeout(pool.query('SELECT 1'), timeoutMs)
    },
    async close() {
      if (closed) return
      closed = true
      await pool.end()
    },
  }
}

function openPglite(dataDir: string): DatabaseHandle {
  const inMemory = dataDir.startsWith('memory://')
  const location = inMemory ? dataDir : path.resolve(dataDir, 'pglite')
  if (!inMemory) mkdirSync(location, { recursive: true })
  const client = new PGlite(location)
  const db = drizzlePglite(client, { schema }) as unknown as Db
  return {
    db,
    kind: 'pglite',
    async migrate() {
      // PGlite lives in this one process, so there is nobody to serialise with.
      await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER })
    },
    async analyze() {
      await client.exec('VACUUM ANALYZE')
    },
    async ping(timeoutMs = 2_000) {
      if (client.closed) throw new Error('database is closed')
      await withTimeout(db.execute(sql`SELECT 1`), timeoutMs)
    },
    async close() {
      if (!client.closed) await client.close()
    },
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database did not answer within ${ms} ms`)), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
