// `npm run db:migrate`: applies db/migrations to the configured database (PGlite under DATA_DIR,
// or DATABASE_URL). The server also does this on start; this is for deploy pipelines.
import { openDatabase } from '#db/client.ts'

const dataDir = process.env.DATA_DIR?.trim() || './data'
const database = openDatabase({ url: process.env.DATABASE_URL?.trim() || undefined, dataDir })
try {
  await database.migrate()
  console.log(`migrations applied (${database.kind})`)
} finally {
  await database.close()
}
