import { inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { users } from '#db/schema/users.ts'

export function createUsersRepo(db: Db) {
  return {
    /** Creates the accounts that are missing (matched by e-mail) and returns the ids of all. */
    async ensureUsers(list: { username: string; email: string }[]): Promise<string[]> {
      if (list.length === 0) return []
      await db
        .insert(users)
        .values(list.map((u) => ({ ...u, emailVerifiedAt: new Date() })))
        .onConflictDoNothing()
      const rows = await db
        .select({ id: users.id })
        .from(users)
        .where(
          inArray(
            sql`lower(${users.email})`,
            list.map((u) => u.email.toLowerCase()),
          ),
        )
      return rows.map((r) => r.id)
    },
  }
}

export type UsersRepo = ReturnType<typeof createUsersRepo>
