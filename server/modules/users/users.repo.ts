import { inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { users } from '#db/schema/users.ts'
import { usernameSkeleton } from '#server/lib/username-skeleton.ts'

export function createUsersRepo(db: Db) {
  return {
    /** A verified account with a password, for development and browser tests (`db:seed --user`). */
    async ensurePasswordUser(values: { username: string; email: string; passwordHash: string }): Promise<string> {
      await db
        .insert(users)
        .values({ ...values, usernameSkeleton: usernameSkeleton(values.username), emailVerifiedAt: new Date() })
        .onConflictDoNothing()
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(sql`lower(${users.email}) = ${values.email.toLowerCase()}`)
      if (!row) throw new Error(`could not create ${values.email}`)
      return row.id
    },

    /** Creates the accounts that are missing (matched by e-mail) and returns the ids of all. */
    async ensureUsers(list: { username: string; email: string }[]): Promise<string[]> {
      if (list.length === 0) return []
      await db
        .insert(users)
        .values(
          list.map((u) => ({ ...u, usernameSkeleton: usernameSkeleton(u.username), emailVerifiedAt: new Date() })),
        )
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
