import { eq, inArray } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { userSuspensions } from '#db/schema/moderation.ts'

/** Owns `user_suspensions` (ADR 055). */
export function createSuspensionsRepo(db: Db) {
  return {
    async isSuspended(userId: string): Promise<boolean> {
      const [row] = await db
        .select({ userId: userSuspensions.userId })
        .from(userSuspensions)
        .where(eq(userSuspensions.userId, userId))
        .limit(1)
      return row !== undefined
    },

    /** Which of these accounts are suspended (for a list of search results). */
    async suspendedAmong(userIds: string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set()
      const rows = await db
        .select({ userId: userSuspensions.userId })
        .from(userSuspensions)
        .where(inArray(userSuspensions.userId, userIds))
      return new Set(rows.map((row) => row.userId))
    },

    async suspensionOf(userId: string) {
      const [row] = await db.select().from(userSuspensions).where(eq(userSuspensions.userId, userId)).limit(1)
      return row ?? null
    },

    /** False when the account was already suspended (nothing changes). */
    async suspend(tx: Tx, values: { userId: string; note: string; actorId: string }): Promise<boolean> {
      const inserted = await tx
        .insert(userSuspensions)
        .values(values)
        .onConflictDoNothing()
        .returning({ userId: userSuspensions.userId })
      return inserted.length > 0
    },

    /** False when the account was not suspended. */
    async restore(tx: Tx, userId: string): Promise<boolean> {
      const deleted = await tx
        .delete(userSuspensions)
        .where(eq(userSuspensions.userId, userId))
        .returning({ userId: userSuspensions.userId })
      return deleted.length > 0
    },
  }
}

export type SuspensionsRepo = ReturnType<typeof createSuspensionsRepo>
