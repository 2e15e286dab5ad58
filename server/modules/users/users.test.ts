import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '#tests/factories/user.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { createUsersRepo } from './users.repo.ts'
import { createUsersService } from './users.service.ts'

describe('users service: what other modules may read and change of a user', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>
  let users: ReturnType<typeof createUsersService>
  beforeAll(async () => {
    database = await openTestDatabase()
    users = createUsersService(createUsersRepo(database.db))
  })
  afterAll(() => database.close())

  it('gives the public name, and an empty one for an account that no longer exists', async () => {
    const user = await createUser(database.db, { username: 'Lantern_Keeper' })
    expect(await users.usernameOf(user.id)).toBe('Lantern_Keeper')
    expect(await users.usernameOf(randomUUID())).toBe('')
  })

  it("keeps the adult-content preference per user, off by default, and changes nobody else's", async () => {
    const [a, b] = [await createUser(database.db), await createUser(database.db)]
    expect(await users.showsAdultContent(a.id)).toBe(false)
    await users.setShowsAdultContent(a.id, true)
    expect(await users.showsAdultContent(a.id)).toBe(true)
    expect(await users.showsAdultContent(b.id)).toBe(false)
    await users.setShowsAdultContent(a.id, false)
    expect(await users.showsAdultContent(a.id)).toBe(false)
    expect(await users.showsAdultContent(randomUUID())).toBe(false)
  })
})
