import { desc, eq } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { userWarnings } from '#db/schema/moderation.ts'

/** Owns `user_warnings` (ADR 055). */
export function createWarningsRepo(db: Db) {
  return {
    async add(tx: Tx, values: { userId: string; roleId: number | null; note: string; actorId: string }) {
      const [row] = await tx.insert(userWarnings).values(values).returning({ id: userWarnings.id })
      if (!row) throw new Error('warning not stored')
      return row.id
    },

    async of(userId: string, limit: number) {
      return db
        .select({
          id: userWarnings.id,
          note: userWarnings.note,
          roleId: userWarnings.roleId,
          createdAt: userWarnings.createdAt,
        })
        .from(userWarnings)
        .where(eq(userWarnings.userId, userId))
        .orderBy(desc(userWarnings.id))
        .limit(limit)
    },
  }
}

export type WarningsRepo = ReturnType<typeof createWarningsRepo>
