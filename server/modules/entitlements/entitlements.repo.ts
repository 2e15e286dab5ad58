import { and, eq, type SQL, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { plans } from '#db/schema/diamonds.ts'
import { subscriptions } from '#db/schema/payments.ts'

export type PlanRow = typeof plans.$inferSelect
export type PlanConfig = Omit<PlanRow, 'active'>

/**
 * THE rule of which paid plan a user holds: the subscription whose paid period has not ended at
 * `at` (now by default). Other repos compose these fragments instead of writing the rule again
 * (chat reads the plan in the statement that stores a message, the monthly award in the statement
 * that credits it, payments to find the subscription to show or change); what the plan then
 * allows comes from the in-memory plan registry, never from the `plans` table.
 */
export function subscriptionHeld(at?: Date): SQL {
  return sql`${subscriptions.currentPeriodEnd} > ${at ? sql`${at.toISOString()}::timestamptz` : sql`now()`}`
}

/** The id of the paid plan the user `userId` (an SQL expression) holds at `at`; null: the free plan. */
export function heldPlanIdSql(userId: SQL, at?: Date): SQL<string | null> {
  return sql<string | null>`(
    select ${subscriptions.planId} from ${subscriptions}
    where ${subscriptions.userId} = ${userId} and ${subscriptionHeld(at)})`
}

export function createEntitlementsRepo(db: Db) {
  return {
    /**
     * Makes the database copy of the plans (which orders and subscriptions reference) match the
     * plans file: listed plans upserted, others deactivated. Nothing reads rules back from it.
     */
    async syncPlans(list: readonly PlanConfig[]) {
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

    /** The id of the paid plan the user holds now; null on the free plan. */
    async heldPlanId(userId: string): Promise<string | null> {
      const [row] = await db
        .select({ planId: subscriptions.planId })
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, userId), subscriptionHeld()))
      return row?.planId ?? null
    },
  }
}

export type EntitlementsRepo = ReturnType<typeof createEntitlementsRepo>
