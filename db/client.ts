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
import { isDatabaseUnavailable } from './connection-errors.ts'
import { pgliteStartParams } from './pglite-settings.ts'
import { withPreparedStatements } from './pglite-statements.ts'
import * as schema from './schema/index.ts'

type Schema = typeof schema
/** The Drizzle client repos use; the same type whichever engine is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction of `Db`, for repos (and the work of other modules) that must commit together. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

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

const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

// Any constant works; it only has to be the same for every instance of the app.
const MIGRATION_LOCK_ID = 7_304_211

export type DatabaseOptions = {
  /** A postgres:// URL; without it the embedded PGlite is used. */
  url?: string | undefined
  /** Where PGlite keeps its files; `memory://` keeps them in memory (tests). */
  dataDir: string
  /** PostgreSQL: give up on a statement after this long (default 30 s; 0: never, for bulk loads). */
  queryTimeoutMs?: number | undefined
}

const DEFAULT_QUERY_TIMEOUT_MS = 30_000

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir)
}

function openPostgres(url: string, options: Pick<DatabaseOptions, 'queryTimeoutMs'>): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A statement sent on a connection that went silent (a database restart or a network cut that
    // never resets the socket) fails after this instead of holding its pool slot for ever; without
    // it, each such incident leaked a connection until the pool was empty
    // (server/database-restart-postgres.test.ts). Bulk loads (benchmark seeding) turn it off.
    query_timeout: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    keepAlive: true,
  })
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  // The pool listens for errors only on idle connections: one checked out (inside a transaction,
  // between its statements) that PostgreSQL drops in a restart would emit an unhandled 'error' and
  // end the process. Its next query fails instead, and the pool discards it on release.
  pool.on('connect', (client) => {
    client.on('error', () => {})
  })
  const db = drizzleNodePg(pool, { schema }) as unknown as Db
  // Drizzle's pooled transaction sends BEGIN before its try/finally, so a BEGIN that fails (the
  // connection dropped in a database restart) never gives its client back: each such incident
  // leaked a pool slot until none was left (server/database-restart-postgres.test.ts). Here a
  // transaction runs on a client checked out and always released, and destroyed when its
  // connection failed rather than returned to the pool.
  const transaction = async (run: (tx: unknown) => Promise<unknown>, config?: unknown): Promise<unknown> => {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      const bound = drizzleNodePg(client) as unknown as { transaction: typeof transaction }
      return await bound.transaction(run, config)
    } catch (error) {
      if (isDatabaseUnavailable(error)) broken = error as Error
      throw error
    } finally {
      client.release(broken)
    }
  }
  ;(db as unknown as { transaction: typeof transaction }).transaction = transaction
  let closed = false
  return {
    db,
    kind: 'postgres',
    async migrate() {
      // A client of its own, without the query timeout: a migration may rewrite a large table.
      const client = new pg.Client({ connectionString: url })
      client.on('error', () => {})
      await client.connect()
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
        try {
          await migrateNodePg(drizzleNodePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER })
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID])
        }
      } finally {
        await client.end()
      }
    },
    async analyze() {
      // Over large tables this outlasts the query timeout: a client of its own, without it.
      const client = new pg.Client({ connectionString: url })
      client.on('error', () => {})
      await client.connect()
      try {
        await client.query('ANALYZE')
      } finally {
        await client.end()
      }
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
  const client = new PGlite(location, { startParams: pgliteStartParams() })
  // Drizzle's queries go through named statements PGlite keeps (ADR 020); migrations do not.
  const db = drizzlePglite({ client: withPreparedStatements(client) as unknown as PGlite, schema }) as unknown as Db
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
