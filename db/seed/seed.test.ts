import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { users } from '#db/schema/users.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { DEMO_USER, seedDemoContent } from './seed.ts'

describe('seedDemoContent', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>
  beforeAll(async () => {
    database = await openTestDatabase()
  })
  afterAll(() => database.close())

  it('adds the demo content once, however often it runs', async () => {
    expect(await seedDemoContent(database.db)).toEqual({ users: 1 })
    expect(await seedDemoContent(database.db)).toEqual({ users: 0 })
    const rows = await database.db.select().from(users)
    expect(rows.map((r) => r.email)).toEqual([DEMO_USER.email])
  })
})
