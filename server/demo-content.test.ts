import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { DEMO_OWNER_EMAIL, seedDemo } from '#server/demo-content.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('demo content', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  it('loads the tags and 40 characters with their owner, and adds nothing twice', async () => {
    const first = await seedDemo(t.database.db, t.app.services)
    // Each character in the 20 other languages of content/characters/i18n (issue 20 item 7).
    expect(first).toEqual({ tags: 30, characters: 40, translations: 40 * 20 })
    const again = await seedDemo(t.database.db, t.app.services)
    expect(again).toEqual({ tags: 30, characters: 0, translations: 0 })
    const owners = await t.database.db.select().from(users).where(eq(users.email, DEMO_OWNER_EMAIL))
    expect(owners).toHaveLength(1)
    const seeded = await t.database.db.select({ id: roles.id, avatar: roles.avatarImageId }).from(roles)
    expect(seeded).toHaveLength(40)
    expect(seeded.every((r) => r.avatar)).toBe(true)
  }, 120_000)
})
