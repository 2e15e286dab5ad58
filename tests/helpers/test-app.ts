import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { DatabaseHandle } from '#db/client.ts'
import { type BuildAppOptions, buildApp } from '#server/app.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { createUser, type UserOverrides } from '#tests/factories/user.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>

/** A model endpoint nothing answers at (the discard port): the default of tests. */
export const CLOSED_MODEL_URL = 'http://127.0.0.1:9/v1'

/**
 * The whole API on a fresh database (PGlite, or PostgreSQL with TEST_DATABASE_URL) and a
 * key-value store (in memory, or Redis with TEST_REDIS_URL under a unique prefix).
 * Call `close()` in afterAll.
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>
    configure?: (app: FastifyInstance) => void | Promise<void>
    /** Another app's database, to run two apps on one (it is not closed with this app). */
    database?: DatabaseHandle
    jobQueue?: BuildAppOptions['jobQueue']
    /** The listing caches' settings (the catalogue version's read interval among them). */
    listingCache?: BuildAppOptions['listingCache']
    /** A plans file instead of config/plans.json (tests/helpers/plans.ts writes one). */
    plansFile?: string
    /** Log lines (JSON, level info and up) go here instead of nowhere. */
    logStream?: { write(line: string): void }
  } = {},
) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-test-'))
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_URL: 'http://localhost:3000',
    // A closed local port: tests never run (nor download) the embedded model unless they ask for it
    // with LLM_BASE_URL '' (an empty variable is unset) and EMBEDDED_MODEL (ADR 036).
    LLM_BASE_URL: CLOSED_MODEL_URL,
    // Machine translation off (ADR 040): a page shown in another locale queues no job towards the
    // closed model. Its own tests turn it on.
    TRANSLATE_DAILY_CHARACTERS: '0',
    ...(options.logStream ? { LOG_LEVEL: 'info' } : {}),
    ...options.env,
  })
  const database = options.database ?? (await openTestDatabase())
  const kv = openKeyValueStore(process.env.TEST_REDIS_URL, `test:${randomBytes(6).toString('hex')}:`)
  const app = await buildApp({
    config,
    database,
    kv,
    closeDatabase: !options.database,
    logger: Boolean(options.logStream),
    logStream: options.logStream,
    jobQueue: options.jobQueue,
    listingCache: options.listingCache,
    ...(options.plansFile ? { plansFile: options.plansFile } : {}),
  })
  await options.configure?.(app)
  await app.ready()

  /** Creates a user (or uses the given one) and returns it with a valid access token. */
  async function login(overrides: UserOverrides = {}) {
    const user = await createUser(database.db, overrides)
    const token = await app.accessTokens.issue({ userId: user.id })
    return { user, token }
  }

  /** `app.inject` with the bearer token of a freshly logged-in user (or the one given). */
  async function injectWithLogin(request: InjectOptions, session?: { token: string }) {
    const { token } = session ?? (await login())
    return app.inject({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } })
  }

  return { app, config, database, kv, login, injectWithLogin, close: () => app.close() }
}
