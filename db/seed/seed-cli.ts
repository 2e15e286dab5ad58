// `npm run db:seed`: fills the configured database with demo content. Safe to run again: it adds
// only what is missing. Later capabilities add their own seeds (characters, plans) here.
import { openDatabase } from '#db/client.ts'
import { seedDemoContent } from './seed.ts'

const dataDir = process.env.DATA_DIR?.trim() || './data'
const database = openDatabase({ url: process.env.DATABASE_URL?.trim() || undefined, dataDir })
try {
  await database.migrate()
  const report = await seedDemoContent(database.db)
  console.log(`seeded (${database.kind}):`, report)
} finally {
  await database.close()
}
