import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { PlanRegistry } from '#server/modules/entitlements/plan-registry.ts'
import { type DiamondsRepo, InsufficientDiamonds, type Tx } from './diamonds.repo.ts'

/** Open holds refunded per query by `refundStaleHolds`. */
const STALE_HOLDS_BATCH = 100

/** `2026-11`: the period a monthly award belongs to (UTC). */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7)
}

export function monthlyReference(userId: string, planId: string, now: Date): string {
  return `monthly:${userId}:${planId}:${periodOf(now)}`
}

/**
 * The diamond ledger and balances. What a plan awards comes from the plan registry of entitlements
 * (read once at start); entitlements asks this module to hold, settle and refund a reply's price.
 */
export function createDiamondsService(repo: DiamondsRepo, plans: Pick<PlanRegistry, 'plans' | 'free'>) {
  const monthly = Object.freeze(Object.fromEntries(plans.plans.map((plan) => [plan.planId, plan.diamondsPerMonth])))
  return {
    balanceOf: repo.balanceOf,
    /** The balance, read (and locked) inside the caller's transaction. */
    balanceIn: (tx: Tx, userId: string) => repo.lockBalance(tx, userId),

    /**
     * The welcome diamonds of a new account, once: the reference is unique, so a second call (a
     * replayed or raced verification) changes nothing. With `tx`, they commit with the caller's write.
     */
    async grantSignup(userId: string, tx?: Tx) {
      await repo.apply({ userId, amount: SIGNUP_GRANT_DIAMONDS, reason: 'signup', reference: `signup:${userId}` }, tx)
    },

    /**
     * Spends diamonds for `reference` (e.g. `chat:<message id>`), never below zero, never twice for
     * the same reference. With `tx` it commits or rolls back together with the caller's write.
     */
    async spend(userId: string, amount: number, reference: string, reason: string, tx?: Tx) {
      if (!Number.isInteger(amount) || amount <= 0) throw new Error('spend amounts are positive integers')
      try {
        return await repo.apply({ userId, amount: -amount, reason, reference }, tx)
      } catch (error) {
        if (error instanceof InsufficientDiamonds) {
          throw new AppError(402, 'INSUFFICIENT_DIAMONDS', 'Not enough diamonds for this.', { needed: amount })
        }
        throw error
      }
    },

    /**
     * An operator's grant (positive `amount`) or deduction (negative) with the caller's transaction
     * (ADR 055), reasons `admin_grant` / `admin_deduct`. A deduction below zero is refused with
     * 409 BALANCE_BELOW_ZERO and changes nothing.
     */
    async adjustByOperator(userId: string, amount: number, reference: string, tx: Tx) {
      if (!Number.isInteger(amount) || amount === 0) throw new Error('adjustments are non-zero integers')
      const reason = amount > 0 ? 'admin_grant' : 'admin_deduct'
      try {
        return await repo.apply({ userId, amount, reason, reference }, tx)
      } catch (error) {
        if (error instanceof InsufficientDiamonds) {
          throw new AppError(409, 'BALANCE_BELOW_ZERO', 'This would take the balance below zero.', { amount })
        }
        throw error
      }
    },

    /**
     * Reserves `amount` before the work it pays for starts (a premium reply, ADR 024): the balance
     * goes down at once, so parallel requests cannot all pass a check of the same diamonds. Refused
     * with 402 INSUFFICIENT_DIAMONDS (needed, balance) when it would go below zero. Every hold ends
     * once: `settleHold` when the work is delivered, `refundHold` when not, or `refundStaleHolds`.
     */
    async hold(userId: string, amount: number, purpose: string): Promise<string> {
      if (!Number.isInteger(amount) || amount <= 0) throw new Error('hold amounts are positive integers')
      try {
        return await repo.hold(userId, amount, purpose)
      } catch (error) {
        if (error instanceof InsufficientDiamonds) {
          throw new AppError(402, 'INSUFFICIENT_DIAMONDS', 'Not enough diamonds for this.', {
            needed: amount,
            balance: await repo.balanceOf(userId),
          })
        }
        throw error
      }
    },

    /**
     * Ends a hold as delivered, inside the caller's transaction: its diamonds return to the balance
     * (ledger `settle`) for the caller's own spend in the same transaction to take. False when the
     * hold was refunded meanwhile (a reply that outlived the stale-hold deadline): the spend then
     * comes from the balance as it is, or fails.
     */
    settleHold: (holdId: string, tx: Tx) => repo.endHold(holdId, 'settle', tx),

    /** Gives a hold's diamonds back (ledger `refund`); false when it had ended already. */
    refundHold: (holdId: string) => repo.endHold(holdId, 'refund'),

    /**
     * Refunds every hold opened before `before` and still open: work that a process killed midway
     * never settled nor refunded. Safe to run twice and on several instances at once.
     */
    async refundStaleHolds(before: Date): Promise<number> {
      let refunded = 0
      for (;;) {
        const ids = await repo.openHoldsBefore(before, STALE_HOLDS_BATCH)
        for (const id of ids) if (await repo.endHold(id, 'refund')) refunded++
        if (ids.length < STALE_HOLDS_BATCH) return refunded
      }
    },

    /**
     * Credits one month of a plan's diamonds, once per user, plan and calendar month: the payment
     * that starts a plan and the monthly award share the reference, so they never both count.
     */
    async creditPlanMonth(userId: string, planId: string, amount: number, now: Date, tx?: Tx) {
      if (amount <= 0) return { applied: false }
      return repo.apply({ userId, amount, reason: 'monthly', reference: monthlyReference(userId, planId, now) }, tx)
    },

    /**
     * A plan change within a month (ADR 025): brings what this month's plan credits gave up to the
     * new plan's `amount`, under the new plan's monthly reference, once. The entry is written even
     * when nothing is owed (amount 0), so the monthly award does not credit the new plan's month
     * again on top.
     */
    async topUpPlanMonth(userId: string, planId: string, amount: number, now: Date, tx: Tx) {
      const credited = await repo.monthlyCreditedIn(tx, userId, periodOf(now))
      const owed = Math.max(0, amount - credited)
      return repo.apply(
        { userId, amount: owed, reason: 'monthly', reference: monthlyReference(userId, planId, now) },
        tx,
      )
    },

    /** What the plan credit of `planId` for the month of `at` gave this user (0 when none). */
    async planMonthCredited(userId: string, planId: string, at: Date, tx: Tx): Promise<number> {
      return (await repo.entryAmount(tx, monthlyReference(userId, planId, at))) ?? 0
    },

    /**
     * Takes back up to `amount` under `reference`, once (ADR 056): never more than the balance
     * holds, so it never goes below zero; answers what was taken (0 when the reference was seen
     * before: nothing is taken twice). The entry is written even when the balance is empty, so the
     * cause is recorded.
     */
    async takeBackUpTo(userId: string, amount: number, reason: string, reference: string, tx: Tx) {
      const balance = await repo.lockBalance(tx, userId)
      const taken = Math.max(0, Math.min(amount, balance))
      const { applied } = await repo.apply({ userId, amount: -taken, reason, reference }, tx)
      return { applied, taken: applied ? taken : 0 }
    },

    /**
     * Credits this month's diamonds to every verified account: the plan it holds now (a paid plan
     * whose period is not over) or else the free plan. Running it again in the same month awards
     * nothing twice.
     */
    async awardMonthly(now = new Date()) {
      const period = periodOf(now)
      const awarded = await repo.awardToVerifiedUsers(monthly, plans.free.planId, period, now)
      return { period, awarded }
    },
  }
}

export type DiamondsService = ReturnType<typeof createDiamondsService>
