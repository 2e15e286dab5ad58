// `npm run db:seed`: fills the configured database with the demo content (idempotent: adds only
// what is missing). `npm run db:seed -- --synthetic 100000` also adds that many generated roles
// for load tests.
import { parseArgs } from 'node:util'
import { openDatabase } from '#db/client.ts'
import { loadConfig } from '#server/config.ts'
import { seedDemo } from '#server/demo-content.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { seedSyntheticRoles } from '#server/modules/catalogue/demo-content.ts'
import { createServices } from '#server/services.ts'

const { values } = parseArgs({ options: { synthetic: { type: 'string' } } })
const synthetic = values.synthetic === undefined ? 0 : Number(values.synthetic)
if (!Number.isInteger(synthetic) || synthetic < 0) {
  console.error('--synthetic takes a whole number of roles, e.g. --synthetic 100000')
  process.exit(2)
}

const dataDir = process.env.DATA_DIR?.trim() || './data'
const database = openDatabase({ url: process.env.DATABASE_URL?.trim() || undefined, dataDir })
try {
  await database.migrate()
  // Redis (when configured) holds cached listing totals; seeding invalidates them there too.
  const kv = openKeyValueStore(process.env.REDIS_URL?.trim() || undefined)
  const services = createServices({
    db: database.db,
    kv,
    config: loadConfig(),
    log: (info, msg) => console.log(msg, info),
  })
  const report = await seedDemo(database.db, services)
  console.log(`seeded (${database.kind}):`, report)
  if (synthetic > 0) {
    const started = Date.now()
    const added = await seedSyntheticRoles(database.db, synthetic)
    await services.catalogue.invalidateListings()
    console.log(`added ${added} synthetic roles in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  await database.analyze()
  await services.mailer.close()
  await kv.close()
} finally {
  await database.close()
}
