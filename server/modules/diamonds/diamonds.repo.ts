import { and, asc, eq, lt, type SQL, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { diamondBalances, diamondHolds, diamondLedger } from '#db/schema/diamonds.ts'
import { users } from '#db/schema/users.ts'
import { heldPlanIdSql } from '#server/modules/entitlements/entitlements.repo.ts'

/** A database transaction, for callers that write something together with a spend. */
export type { Tx }

export class InsufficientDiamonds extends Error {
  constructor() {
    super('insufficient diamonds')
    this.name = 'InsufficientDiamonds'
  }
}

export type LedgerEntry = { userId: string; amount: number; reason: string; reference: string }

/** How a hold ends: its diamonds are spent on what it was for, or given back. */
export type HoldEnd = 'settle' | 'refund'

export const holdReference = (purpose: string, holdId: string) => `${purpose}-hold:${holdId}`
export const holdEndReference = (purpose: string, holdId: string) => `${purpose}-hold-end:${holdId}`

/** A user's balance (0 with no row yet), for a statement of another module that reads it along (the chat's reply). */
export const balanceSql = (userId: SQL) =>
  sql<number>`coalesce((select ${diamondBalances.balance} from ${diamondBalances} where ${diamondBalances.userId} = ${userId}), 0)`.mapWith(
    Number,
  )

export function createDiamondsRepo(db: Db) {
  async function applyIn(tx: Tx, entry: LedgerEntry) {
    const inserted = await tx
      .insert(diamondLedger)
      .values(entry)
      .onConflictDoNothing({ target: diamondLedger.reference })
      .returning({ id: diamondLedger.id })
    if (inserted.length === 0) return { applied: false }
    await tx.insert(diamondBalances).values({ userId: entry.userId, balance: 0 }).onConflictDoNothing()
    // The row lock serialises concurrent changes; the condition is checked against the committed
    // balance, so a spend that would go below zero changes nothing.
    const [row] = await tx
      .update(diamondBalances)
      .set({ balance: sql`${diamondBalances.balance} + ${entry.amount}` })
      .where(and(eq(diamondBalances.userId, entry.userId), sql`${diamondBalances.balance} + ${entry.amount} >= 0`))
      .returning({ balance: diamondBalances.balance })
    if (!row) throw new InsufficientDiamonds()
    return { applied: true, balance: row.balance }
  }

  return {
    /**
     * Records one change and moves the balance, all or nothing. A reference seen before changes
     * nothing (applied: false). Pass `tx` to make it part of the caller's own transaction.
     */
    async apply(entry: LedgerEntry, tx?: Tx): Promise<{ applied: boolean }> {
      if (tx) return applyIn(tx, entry)
      return db.transaction((own) => applyIn(own, entry))
    },

    /**
     * Reserves `amount` for `purpose`: an open hold row and its ledger debit (reason `hold`), in one
     * transaction, never below zero (InsufficientDiamonds, and nothing is written).
     */
    async hold(userId: string, amount: number, purpose: string): Promise<string> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(diamondHolds)
          .values({ userId, amount, purpose })
          .returning({ id: diamondHolds.id })
        if (!row) throw new Error('hold was not stored')
        await applyIn(tx, { userId, amount: -amount, reason: 'hold', reference: holdReference(purpose, row.id) })
        return row.id
      })
    },

    /**
     * Ends an open hold: gives its diamonds back to the balance (reason `settle` or `refund`) and
     * closes it, once. False when it was ended already (the row lock makes a second caller wait for
     * the first, then find nothing). Settling, the caller spends in the same transaction.
     */
    async endHold(holdId: string, end: HoldEnd, tx?: Tx): Promise<boolean> {
      const run = async (own: Tx) => {
        const [row] = await own.delete(diamondHolds).where(eq(diamondHolds.id, holdId)).returning()
        if (!row) return false
        const reference = holdEndReference(row.purpose, row.id)
        await applyIn(own, { userId: row.userId, amount: row.amount, reason: end, reference })
        return true
      }
      return tx ? run(tx) : db.transaction(run)
    },

    /** Holds opened before `before` and still open, oldest first. */
    async openHoldsBefore(before: Date, limit: number): Promise<string[]> {
      const rows = await db
        .select({ id: diamondHolds.id })
        .from(diamondHolds)
        .where(lt(diamondHolds.createdAt, before))
        .orderBy(asc(diamondHolds.createdAt))
        .limit(limit)
      return rows.map((r) => r.id)
    },

    /** What `monthly:<user>:<any plan>:<period>` entries credited this user for one month. */
    async monthlyCreditedIn(tx: Tx, userId: string, period: string): Promise<number> {
      const [row] = await tx
        .select({ sum: sql<number>`coalesce(sum(${diamondLedger.amount}), 0)::int` })
        .from(diamondLedger)
        .where(
          and(
            eq(diamondLedger.userId, userId),
            eq(diamondLedger.reason, 'monthly'),
            sql`${diamondLedger.reference} like ${`monthly:${userId}:%:${period}`}`,
          ),
        )
      return Number(row?.sum ?? 0)
    },

    /** The balance, locked until the transaction ends, so nothing spends it meanwhile. */
    async lockBalance(tx: Tx, userId: string): Promise<number> {
      const [row] = await tx
        .select({ balance: diamondBalances.balance })
        .from(diamondBalances)
        .where(eq(diamondBalances.userId, userId))
        .for('update')
      return row?.balance ?? 0
    },

    /** The amount of the ledger entry with this reference, if it was written. */
    async entryAmount(tx: Tx, reference: string): Promise<number | undefined> {
      const [row] = await tx
        .select({ amount: diamondLedger.amount })
        .from(diamondLedger)
        .where(eq(diamondLedger.reference, reference))
      return row?.amount
    },

    async balanceOf(userId: string): Promise<number> {
      const [row] = await db
        .select({ balance: diamondBalances.balance })
        .from(diamondBalances)
        .where(eq(diamondBalances.userId, userId))
      return row?.balance ?? 0
    },

    async ledgerSum(userId: string): Promise<number> {
      const [row] = await db
        .select({ sum: sql<number>`coalesce(sum(${diamondLedger.amount}), 0)::int` })
        .from(diamondLedger)
        .where(eq(diamondLedger.userId, userId))
      return row?.sum ?? 0
    },

    /**
     * Credits each verified account its plan's monthly diamonds for `period`, once: one statement
     * inserts the missing ledger rows (the references make it idempotent) and adds exactly those to
     * balances. The plan is the one entitlements says the user holds at `now` (`heldPlanIdSql`),
     * else `freePlanId`; `monthly` gives each plan's diamonds (from the plan registry).
     */
    async awardToVerifiedUsers(
      monthly: Readonly<Record<string, number>>,
      freePlanId: string,
      period: string,
      now: Date,
    ): Promise<number> {
      return db.transaction(async (tx) => {
        const result = await tx.execute(sql`
          insert into ${diamondLedger} (user_id, amount, reason, reference)
          select h.id, p.amount, 'monthly', 'monthly:' || h.id || ':' || p.plan_id || ':' || ${period}
            from (
              select u.id, coalesce(${heldPlanIdSql(sql`u.id`, now)}, ${freePlanId}) as plan_id
                from ${users} u
               where u.email_verified_at is not null
            ) h
            join (select key as plan_id, value::int as amount from jsonb_each_text(${JSON.stringify(monthly)}::jsonb)) p
              on p.plan_id = h.plan_id
           where p.amount > 0
          on conflict (reference) do nothing
          returning user_id, amount`)
        const credited = (result as unknown as { rows: { user_id: string; amount: number }[] }).rows.map((r) => ({
          userId: r.user_id,
          amount: Number(r.amount),
        }))
        for (let i = 0; i < credited.length; i += 1000) {
          const batch = credited.slice(i, i + 1000).map((c) => ({ userId: c.userId, balance: c.amount }))
          await tx
            .insert(diamondBalances)
            .values(batch)
            .onConflictDoUpdate({
              target: diamondBalances.userId,
              set: { balance: sql`${diamondBalances.balance} + excluded.balance` },
            })
        }
        return credited.length
      })
    },
  }
}

export type DiamondsRepo = ReturnType<typeof createDiamondsRepo>
