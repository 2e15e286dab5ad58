import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import type { SubscriptionChanged } from './gateway.ts'
import type { SubscriptionRow } from './payments.repo.ts'

// What the stored subscription row says and how a provider's word changes it: pure functions, so
// the rules can be read (and tested) without a database or a provider.

/** Stripe's `cancel_at` within this of the period end counts as "ends at the period end". */
const CANCEL_AT_TOLERANCE_MS = 86_400_000

/** A plan renews while a provider subscription stands behind it that is neither ended nor set to end. */
export const renews = (row: Pick<SubscriptionRow, 'providerSubscriptionId' | 'status' | 'cancelAtPeriodEnd'>) =>
  row.providerSubscriptionId !== null && row.status !== 'canceled' && !row.cancelAtPeriodEnd

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    planId: row.planId,
    billingCycle: row.billingCycle,
    status: row.status,
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
    renews: renews(row),
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
  }
}

/** Whether an event at `eventAt` is at least as new as the last one applied to the row. */
export const isNewer = (row: Pick<SubscriptionRow, 'lastEventAt'>, eventAt: Date) =>
  !row.lastEventAt || eventAt >= row.lastEventAt

/**
 * The row after a `subscription-changed` outcome, or undefined when it changes nothing: an ended
 * subscription stays ended, and a change older than the last one applied (a webhook or our own
 * cancel/resume call) is stale. `plan` is set when the subscription now bills another plan or cycle
 * (ADR 025), whose month of diamonds the caller then tops up.
 */
export function stateAfterChange(
  sub: SubscriptionRow,
  outcome: SubscriptionChanged,
  eventAt: Date,
  plans: readonly Plan[],
):
  | {
      values: Pick<SubscriptionRow, 'status' | 'cancelAtPeriodEnd'> & { lastEventAt: Date } & Partial<
          Pick<SubscriptionRow, 'planId' | 'billingCycle' | 'currentPeriodEnd'>
        >
      plan: Plan | undefined
      billingCycle: BillingCycle
    }
  | undefined {
  if (sub.status === 'canceled' || !isNewer(sub, eventAt)) return undefined
  const cancelAtPeriodEnd =
    outcome.cancelAtPeriodEnd ||
    outcome.status === 'canceled' ||
    (outcome.cancelAt !== undefined &&
      outcome.cancelAt.getTime() <= sub.currentPeriodEnd.getTime() + CANCEL_AT_TOLERANCE_MS)
  // Stripe's own `canceled` arrives with customer.subscription.deleted, which ends the plan.
  const status =
    outcome.status === 'past_due' || outcome.status === 'unpaid'
      ? ('past_due' as const)
      : outcome.status === 'canceled'
        ? sub.status
        : ('active' as const)
  // A new plan or cycle (ADR 025): an upgrade or an interval switch Stripe applied once its
  // prorated invoice was paid, or a change made in Stripe's dashboard.
  const found = outcome.planId ? plans.find((p) => p.planId === outcome.planId && !p.free) : undefined
  const billingCycle = outcome.billingCycle ?? sub.billingCycle
  const plan = found && (found.planId !== sub.planId || billingCycle !== sub.billingCycle) ? found : undefined
  return {
    values: {
      status,
      cancelAtPeriodEnd,
      lastEventAt: eventAt,
      ...(plan
        ? { planId: plan.planId, billingCycle, currentPeriodEnd: outcome.periodEnd ?? sub.currentPeriodEnd }
        : {}),
    },
    plan,
    billingCycle,
  }
}
