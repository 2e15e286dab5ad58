import { asc, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { plans } from '#db/schema/diamonds.ts'

export type PlanRow = typeof plans.$inferSelect
export type PlanConfig = Omit<PlanRow, 'active'>

export function createPlansRepo(db: Db) {
  return {
    /** Makes the table match the config file: listed plans upserted, others deactivated. */
    async sync(list: PlanConfig[]) {
      await db.transaction(async (tx) => {
        await tx.update(plans).set({ active: false })
        for (const plan of list) {
          await tx
            .insert(plans)
            .values({ ...plan, active: true })
            .onConflictDoUpdate({ target: plans.id, set: { ...plan, active: true } })
        }
      })
    },
    async activePlans(): Promise<PlanRow[]> {
      return db.select().from(plans).where(eq(plans.active, true)).orderBy(asc(plans.sortOrder), asc(plans.id))
    },
    async count(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(plans)
      return row?.n ?? 0
    },
  }
}

export type PlansRepo = ReturnType<typeof createPlansRepo>
