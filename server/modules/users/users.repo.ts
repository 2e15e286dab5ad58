import { eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { users } from '#db/schema/users.ts'
import { usernameSkeleton } from '#server/lib/username-skeleton.ts'

// The users table belongs to three repos, each with its part of an account: auth (credentials,
// address proof, Google link), account (the account page, export, deletion) and this one (public
// name, preferences, seeding). Other modules ask the users service; the few that join the table
// in their own SQL say why (server/modules/table-owners.test.ts lists them).
export function createUsersRepo(db: Db) {
  return {
    async usernameOf(userId: string): Promise<string | null> {
      const [row] = await db.select({ username: users.username }).from(users).where(eq(users.id, userId)).limit(1)
      return row?.username ?? null
    },

    /** The account of an e-mail address, compared case-insensitively. */
    async idByEmail(email: string): Promise<string | null> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`)
        .limit(1)
      return row?.id ?? null
    },

    async showsAdultContent(userId: string): Promise<boolean> {
      const [row] = await db.select({ show: users.showAdultContent }).from(users).where(eq(users.id, userId)).limit(1)
      return row?.show ?? false
    },

    async setShowsAdultContent(userId: string, show: boolean): Promise<void> {
      await db.update(users).set({ showAdultContent: show, updatedAt: new Date() }).where(eq(users.id, userId))
    },

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
