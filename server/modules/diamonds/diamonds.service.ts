import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { PlansService } from '#server/modules/plans/plans.service.ts'
import { type DiamondsRepo, InsufficientDiamonds, type Tx } from './diamonds.repo.ts'

/** `2026-11`: the period a monthly award belongs to (UTC). */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7)
}

export function monthlyReference(userId: string, planId: string, now: Date): string {
  return `monthly:${userId}:${planId}:${periodOf(now)}`
}

export function createDiamondsService(repo: DiamondsRepo, plans: PlansService) {
  return {
    balanceOf: repo.balanceOf,

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
     * Credits one month of a plan's diamonds, once per user, plan and calendar month: the payment
     * that starts a plan and the monthly award share the reference, so they never both count.
     */
    async creditPlanMonth(userId: string, planId: string, amount: number, now: Date, tx?: Tx) {
      if (amount <= 0) return { applied: false }
      return repo.apply({ userId, amount, reason: 'monthly', reference: monthlyReference(userId, planId, now) }, tx)
    },

    /**
     * Credits this month's diamonds to every verified account: the plan it holds now (a paid plan
     * whose period is not over) or else the free plan. Running it again in the same month awards
     * nothing twice.
     */
    async awardMonthly(now = new Date()) {
      const free = await plans.freePlan()
      const period = periodOf(now)
      if (!free) return { period, awarded: 0 }
      const awarded = await repo.awardToVerifiedUsers(free.planId, period, now)
      return { period, awarded }
    },
  }
}

export type DiamondsService = ReturnType<typeof createDiamondsService>
