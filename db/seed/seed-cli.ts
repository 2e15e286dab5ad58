// `npm run db:seed`: fills the configured database with the demo content (idempotent: adds only
// what is missing). `npm run db:seed -- --synthetic 100000` also adds that many generated roles
// for load tests. `--user name:email:password` adds a verified account with its welcome diamonds
// (development and browser tests; repeatable).
import { parseArgs } from 'node:util'
import { openDatabase } from '#db/client.ts'
import { loadConfig } from '#server/config.ts'
import { seedDemo } from '#server/demo-content.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { seedSyntheticRoles } from '#server/modules/catalogue/demo-content.ts'
import { createUsersRepo } from '#server/modules/users/users.repo.ts'
import { createServices } from '#server/services.ts'

const { values } = parseArgs({ options: { synthetic: { type: 'string' }, user: { type: 'string', multiple: true } } })
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
  for (const spec of values.user ?? []) {
    const [username = '', email = '', ...rest] = spec.split(':')
    const password = rest.join(':')
    if (!username || !email.includes('@') || password.length < 8) {
      throw new Error('--user takes name:email:password (a password of at least 8 characters)')
    }
    const id = await createUsersRepo(database.db).ensurePasswordUser({
      username,
      email,
      passwordHash: await hashPassword(password),
    })
    await services.diamonds.grantSignup(id)
    console.log(`account ${email} ready`)
  }
  await database.analyze()
  await services.mailer.close()
  await kv.close()
} finally {
  await database.close()
}
