// `npm run admin -- grant <email> [--role admin|moderator]`, `revoke <email>`, `reset-2fa <email>`,
// `list`: staff from the command line (ADR 054), against the configured database (DATABASE_URL,
// or the PGlite database under DATA_DIR, which the server must not have open meanwhile).
import { openDatabase } from '#db/client.ts'
import { loadConfig } from '#server/config.ts'
import { openKeyValueStore } from '#server/lib/key-value-store.ts'
import { runAdminCli } from '#server/modules/staff/admin-cli.ts'
import { createAuditRepo } from '#server/modules/staff/audit.repo.ts'
import { createAudit } from '#server/modules/staff/audit.ts'
import { createConsoleSessions } from '#server/modules/staff/console-sessions.ts'
import { createStaffRepo } from '#server/modules/staff/staff.repo.ts'
import { createStaffService } from '#server/modules/staff/staff.service.ts'
import { createSecretBox } from '#server/modules/staff/totp.ts'
import { createUsersRepo } from '#server/modules/users/users.repo.ts'
import { createUsersService } from '#server/modules/users/users.service.ts'

const config = loadConfig()
const database = openDatabase({ url: config.databaseUrl, dataDir: config.dataDir })
const kv = openKeyValueStore(config.redisUrl)
let code = 1
try {
  await database.migrate()
  const staff = createStaffService({
    repo: createStaffRepo(database.db),
    users: createUsersService(createUsersRepo(database.db)),
    audit: createAudit(createAuditRepo(database.db)),
    secrets: createSecretBox(config.staffTotpKey),
    sessions: createConsoleSessions(kv),
    kv,
  })
  code = await runAdminCli(process.argv.slice(2), staff)
} finally {
  await kv.close()
  await database.close()
}
process.exit(code)
