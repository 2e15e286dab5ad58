import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEnv } from 'node:util'
import { openDatabase } from '#db/client.ts'
import { buildApp } from '#server/app.ts'
import { ConfigError, loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { readPlansFile } from '#server/modules/entitlements/plans-file.ts'
import { logChatProvider } from '#server/modules/models/chat-provider-log.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'

const SHUTDOWN_GRACE_MS = 25_000

/** A `.env` in the working directory fills in variables the environment does not set. */
function loadDotEnv(file = '.env') {
  if (!existsSync(file)) return
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (process.env[name] === undefined) process.env[name] = value
  }
}

async function main() {
  loadDotEnv()
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig()
    // A bad MODELS_FILE or config/plans.json is a configuration error too: refused before anything
    // is opened (the app reads both again, once, when it builds its services).
    loadModelRegistry(config.llm)
    readPlansFile()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(78) // EX_CONFIG
    }
    throw error
  }

  const database = openDatabase({ url: config.databaseUrl, dataDir: config.dataDir })
  await database.migrate()
  const kv = openKeyValueStore(config.redisUrl)
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  // `npm run dev`: Vite renders from source with hot reload (never in production).
  const vite =
    process.argv.includes('--dev') && !config.isProduction
      ? await (await import('vite')).createServer({ root, server: { middlewareMode: true }, appType: 'custom' })
      : undefined
  const app = await buildApp({
    config,
    database,
    kv,
    closeDatabase: true,
    webBuildDir: path.join(root, 'build'),
    vite,
  })
  if (vite) app.addHook('onClose', () => vite.close())
  // Outside production the product starts with its demo content, so a fresh clone has something
  // to show. Only what is missing is added, so restarts are quick.
  if (!config.isProduction) {
    // Imported here only: production never seeds, and the drawing library behind the demo avatars
    // alone holds ~5 MB of heap (ADR 063).
    const { seedDemo } = await import('#server/demo-content.ts')
    const seeded = await seedDemo(database.db, app.services)
    app.log.info({ seeded }, 'demo content ready')
  }
  // Monthly diamonds, the deletion of expired sign-in tokens and links, the refund of diamond holds
  // a killed process left open, and the machine translations of TRANSLATE_AHEAD_LOCALES still
  // missing: jobs queued at start and every hour, keyed by the hour, so several instances queue one
  // of each between them; all are idempotent (ADR 017, ADR 024, ADR 040).
  const queueHourly = () => {
    const hour = new Date().toISOString().slice(0, 13)
    for (const kind of ['monthly-award', 'expired-tokens', 'stale-holds', 'translate-ahead'] as const) {
      app.services.jobs
        .enqueue(kind, {}, { key: `${kind}:${hour}` })
        .catch((err: unknown) => app.log.error({ err, kind }, 'hourly job could not be queued'))
    }
  }
  const awardTimer = setInterval(queueHourly, 60 * 60_000)
  awardTimer.unref()
  app.addHook('onClose', async () => clearInterval(awardTimer))
  if (database.kind === 'pglite') {
    // No autovacuum in PGlite: keep the planner's statistics and the visibility map fresh ourselves.
    await database.analyze()
    const timer = setInterval(() => {
      database.analyze().catch((err: unknown) => app.log.warn({ err }, 'VACUUM ANALYZE failed'))
    }, 60 * 60_000)
    timer.unref()
    app.addHook('onClose', async () => clearInterval(timer))
  }

  let shuttingDown = false
  const shutdown = (signal: string) => {
    if (shuttingDown) return
    shuttingDown = true
    app.log.info({ signal }, 'shutting down: draining requests')
    const force = setTimeout(() => {
      app.log.error('requests did not drain in time; exiting')
      process.exit(1)
    }, SHUTDOWN_GRACE_MS)
    force.unref()
    app.close().then(
      () => {
        app.log.info('shut down cleanly')
        process.exit(0)
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down')
        process.exit(1)
      },
    )
  }
  // `on`, not `once`: node-llama-cpp (the embedded model) loads signal-exit, which re-raises a
  // signal as soon as it is the only listener left, killing the process before it drained.
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))

  let stopChatProviderLog = () => {}
  app.addHook('onClose', async () => stopChatProviderLog())
  await app.listen({ port: config.port, host: config.host })
  queueHourly()
  // The holds of replies cut off when the last process died are refunded as soon as they are surely
  // dead, not only at the next hour.
  const afterDeadline = new Date(Date.now() + app.services.chat.holdDeadlineMs)
  app.services.jobs
    .enqueue('stale-holds', {}, { key: 'stale-holds:after-start', runAt: afterDeadline })
    .catch((err: unknown) => app.log.error({ err }, 'stale-holds job could not be queued'))
  app.log.info({ url: config.publicUrl, database: database.kind, cache: kv.kind, env: config.env }, 'ready')
  // Which provider and model serve chat, and (embedded) each change of its state (ADR 037).
  stopChatProviderLog = logChatProvider({ registry: app.services.models, embedded: app.embeddedModel, log: app.log })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
