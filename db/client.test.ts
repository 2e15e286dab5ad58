import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '#db/client.ts'
import { PGLITE_SETTINGS } from '#db/pglite-settings.ts'
import { users } from '#db/schema/users.ts'
import { createUser } from '#tests/factories/user.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

describe('database', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>
  beforeAll(async () => {
    database = await openTestDatabase()
  })
  afterAll(() => database.close())

  it('applies the migrations, and applying them again changes nothing', async () => {
    await database.migrate()
    const result = await database.db.execute(sql`SELECT count(*)::int AS n FROM users`)
    expect((result as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0)
  })

  it('keeps e-mail addresses and usernames unique regardless of case', async () => {
    await createUser(database.db, { email: 'Alice@Example.test', username: 'Alice' })
    await expect(createUser(database.db, { email: 'alice@example.TEST' })).rejects.toThrow()
    await expect(createUser(database.db, { username: 'ALICE' })).rejects.toThrow()
    const rows = await database.db.select().from(users)
    expect(rows).toHaveLength(1)
    expect(rows[0]?.id).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('PGlite', () => {
  it("starts with the app's memory settings, not PostgreSQL's server defaults (ADR 063)", async () => {
    const database = openDatabase({ dataDir: 'memory://' })
    try {
      for (const [name, value] of Object.entries(PGLITE_SETTINGS)) {
        const result = await database.db.execute(sql.raw(`SHOW ${name}`))
        expect((result as unknown as { rows: Record<string, string>[] }).rows[0]?.[name]).toBe(value)
      }
      expect(PGLITE_SETTINGS.shared_buffers).toBe('16MB')
    } finally {
      await database.close()
    }
  })
})
