import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '#db/client.ts'
import { createUser } from '#tests/factories/user.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../..')

/** `npm run admin` as an operator runs it: a child process on the configured database. */
async function admin(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'development', LLM_BASE_URL: 'http://127.0.0.1:9/v1', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('scripts/admin.ts', () => {
  it('grants on the configured database, audited as cli, and refuses an unknown address with exit 1', async () => {
    // PostgreSQL with TEST_DATABASE_URL, else a PGlite database in a folder (closed before the script opens it).
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rp-admin-'))
    const pg = process.env.TEST_DATABASE_URL ? await openTestDatabase() : null
    const env: Record<string, string> = pg?.url ? { DATABASE_URL: pg.url, DATA_DIR: dataDir } : { DATA_DIR: dataDir }
    const open = () => pg ?? openDatabase({ dataDir })
    let db = open()
    await db.migrate()
    const user = await createUser(db.db)
    if (!pg) await db.close()
    try {
      const unknown = await admin(env, 'grant', 'nobody@example.test')
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain('No account has the e-mail address nobody@example.test')
      const granted = await admin(env, 'grant', user.email, '--role', 'moderator', '--note', 'first moderator')
      expect(granted.code).toBe(0)
      expect(granted.stdout).toContain(`${user.email} is now moderator`)

      db = open()
      const rows = await db.db.execute(
        sql`select s.role, a.actor_id, a.actor_label, a.action, a.note from staff_members s join admin_audit a on a.target_id = s.user_id::text where s.user_id = ${user.id}`,
      )
      // PGlite and node-postgres both answer an object with `rows`.
      const list = (rows as unknown as { rows: unknown[] }).rows
      expect(list).toEqual([
        { role: 'moderator', actor_id: null, actor_label: 'cli', action: 'staff.grant', note: 'first moderator' },
      ])
    } finally {
      await db.close()
    }
  }, 180_000)
})
