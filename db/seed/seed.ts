import type { Db } from '../client.ts'
import { users } from '../schema/users.ts'

/** The demo account that owns the seeded content; it has no password and cannot log in. */
export const DEMO_USER = { username: 'taleweave', email: 'demo@taleweave.invalid' } as const

/** Idempotent: inserts what is missing and reports what it added. */
export async function seedDemoContent(db: Db) {
  const inserted = await db
    .insert(users)
    .values({ username: DEMO_USER.username, email: DEMO_USER.email, emailVerifiedAt: new Date() })
    // The unique index is on lower(email); any conflict means the demo user is already there.
    .onConflictDoNothing()
    .returning({ id: users.id })
  return { users: inserted.length }
}
