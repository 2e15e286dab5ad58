import { randomBytes } from 'node:crypto'
import type { Db } from '#db/client.ts'
import { type NewUserRow, users } from '#db/schema/users.ts'
import { usernameSkeleton } from '#server/lib/username-skeleton.ts'

export type UserOverrides = Partial<NewUserRow>

let sequence = 0

/** A verified user with a unique name and address. Seeds reuse this too. */
export async function createUser(db: Db, overrides: UserOverrides = {}) {
  sequence += 1
  const suffix = `${sequence}${randomBytes(3).toString('hex')}`
  const username = overrides.username ?? `user_${suffix}`
  const [user] = await db
    .insert(users)
    .values({
      username,
      usernameSkeleton: usernameSkeleton(username),
      email: `user_${suffix}@example.test`,
      emailVerifiedAt: new Date(),
      ...overrides,
    })
    .returning()
  if (!user) throw new Error('user was not created')
  return user
}
