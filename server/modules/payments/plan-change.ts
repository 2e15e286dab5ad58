import type { PaymentType } from '#contracts/payments.ts'
import { type BillingCycle, compareChange, type Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { SubscriptionRow } from './payments.repo.ts'

// What buying a plan means while another one runs (docs/decisions/025-plan-changes.md).

/** How a purchase relates to the plan held now. */
export type Purchase =
  /** Nothing paid runs: a new checkout or invoice, starting now. */
  | { kind: 'new' }
  /** A card subscription runs: Stripe changes its price (with proration); no second subscription. */
  | { kind: 'change' }
  /** A one-off payment for the plan held: its period is extended from its current end. */
  | { kind: 'extend' }
  /** A one-off payment for a higher plan: it starts now, and the time left on the old one is converted. */
  | { kind: 'upgrade' }

/** A card subscription (Stripe's, or its sandbox stand-in) stands behind the plan and is not ended. */
export const liveSubscription = (row: Pick<SubscriptionRow, 'providerSubscriptionId' | 'status'>) =>
  row.providerSubscriptionId !== null && row.status !== 'canceled'

const refuse = (reason: 'downgrade' | 'card-plan-renews' | 'one-off-plan-runs', message: string) =>
  new AppError(409, 'PLAN_CHANGE_NOT_ALLOWED', message, { reason })

/**
 * Decides a purchase before any provider is called, or refuses it with a 409 that says why.
 * `held` is the plan whose period runs now (undefined on the free plan).
 */
export function decidePurchase(
  held: { row: SubscriptionRow; plan: Plan } | undefined,
  target: Plan,
  cycle: BillingCycle,
  paymentType: PaymentType,
): Purchase {
  if (!held) return { kind: 'new' }
  const { row, plan } = held
  const step = compareChange(plan, row.billingCycle, target, cycle)
  if (paymentType === 'card') {
    if (step === 'same') {
      throw new AppError(409, 'ALREADY_SUBSCRIBED', 'This plan is already yours', { planId: row.planId })
    }
    if (!liveSubscription(row)) {
      throw refuse('one-off-plan-runs', 'A plan paid for one period runs; a card subscription can start when it ends')
    }
    if (step === 'down')
      throw refuse('downgrade', 'A smaller plan or a shorter cycle: cancel, and choose it when the plan ends')
    return { kind: 'change' }
  }
  if (liveSubscription(row) && !row.cancelAtPeriodEnd) {
    throw refuse('card-plan-renews', 'A card subscription renews: cancel it before paying by crypto')
  }
  if (row.planId === target.planId) return { kind: 'extend' }
  if (target.priceMonthly < plan.priceMonthly) {
    throw refuse('downgrade', 'A smaller plan: it can be bought when the current one ends')
  }
  return { kind: 'upgrade' }
}

/** The end of one paid period starting at `from`: a calendar month or year later. */
export function addPeriod(from: Date, cycle: BillingCycle): Date {
  const end = new Date(from)
  if (cycle === 'yearly') end.setUTCFullYear(end.getUTCFullYear() + 1)
  else end.setUTCMonth(end.getUTCMonth() + 1)
  // 31 January + 1 month is 3 March in JavaScript; clamp to the month's last day instead.
  if (cycle === 'monthly' && end.getUTCDate() !== from.getUTCDate()) end.setUTCDate(0)
  return end
}

const DAY_MS = 86_400_000
/** The nominal length of a cycle, for converting time between plans (not for period ends). */
const cycleMs = (cycle: BillingCycle) => (cycle === 'yearly' ? 365 : 30) * DAY_MS
const pricePerMs = (plan: Plan, cycle: BillingCycle) =>
  (cycle === 'yearly' ? plan.priceYearly : plan.priceMonthly) / cycleMs(cycle)

/**
 * Time on `to` worth as much as `ms` of `from`: the unused days of a one-off plan are not lost on
 * an upgrade, they become fewer days of the dearer plan (ADR 025).
 */
export function convertTime(ms: number, from: Plan, fromCycle: BillingCycle, to: Plan, toCycle: BillingCycle): number {
  const toRate = pricePerMs(to, toCycle)
  if (ms <= 0 || toRate <= 0) return 0
  return Math.floor((ms * pricePerMs(from, fromCycle)) / toRate)
}

/**
 * The plan a one-off (crypto) period paid while `running` runs turns into (ADR 025): the plan held
 * is extended from its end; a higher plan starts now and the days left on the old one become days
 * of the new one; a lower one (the state changed while its invoice was open) adds its worth in days
 * of the plan held, so the money still buys time.
 */
export function oneOffPeriod(
  running: Pick<SubscriptionRow, 'billingCycle' | 'currentPeriodEnd'>,
  held: Plan,
  bought: Plan,
  boughtCycle: BillingCycle,
  now: Date,
): { planId: string; billingCycle: BillingCycle; currentPeriodEnd: Date } {
  if (bought.planId === held.planId) {
    return {
      planId: held.planId,
      billingCycle: boughtCycle,
      currentPeriodEnd: addPeriod(running.currentPeriodEnd, boughtCycle),
    }
  }
  const boughtEnd = addPeriod(now, boughtCycle)
  if (bought.priceMonthly > held.priceMonthly) {
    const left = running.currentPeriodEnd.getTime() - now.getTime()
    return {
      planId: bought.planId,
      billingCycle: boughtCycle,
      currentPeriodEnd: new Date(
        boughtEnd.getTime() + convertTime(left, held, running.billingCycle, bought, boughtCycle),
      ),
    }
  }
  const boughtMs = boughtEnd.getTime() - now.getTime()
  return {
    planId: held.planId,
    billingCycle: running.billingCycle,
    currentPeriodEnd: new Date(
      running.currentPeriodEnd.getTime() + convertTime(boughtMs, bought, boughtCycle, held, running.billingCycle),
    ),
  }
}
