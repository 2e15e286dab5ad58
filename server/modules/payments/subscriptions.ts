import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { JobPayloads } from '#server/modules/jobs/job-queue.ts'
import type { SubscriptionChanged, SubscriptionManager } from './gateway.ts'
import { notConfigured } from './gateways.ts'
import type { PaymentProvider, SubscriptionRow } from './payments.repo.ts'
import type { PaymentsDeps } from './payments.service.ts'
import { subscriptionView } from './subscription-state.ts'
import type { createWebhookOutcomes } from './webhook-outcomes.ts'

type SubscriptionDeps = Pick<PaymentsDeps, 'repo' | 'plans' | 'gateways' | 'log'> & {
  outcomes: Pick<ReturnType<typeof createWebhookOutcomes>, 'apply'>
}

export const planName = (plan: Plan) => `${plan.planId.charAt(0).toUpperCase()}${plan.planId.slice(1)}`

/**
 * The running card plan, changed at the provider that bills it: renewal stopped or restored
 * (ADR 016), moved to a higher plan or a longer cycle (ADR 025), and a second subscription a race
 * let through refunded (ADR 025). Each call reaches the provider first and changes the row only
 * once the provider agreed, in the same words its webhook will repeat.
 */
export function createSubscriptions(deps: SubscriptionDeps) {
  const { repo, log } = deps

  /** The provider's subscription calls, or a 503 when that provider is not configured (any more). */
  function managerOf(provider: PaymentProvider): SubscriptionManager {
    const manager = deps.gateways.of(provider)?.subscriptions
    if (!manager) throw new AppError(503, 'SERVICE_UNAVAILABLE', notConfigured('card'))
    return manager
  }

  /** Runs a provider call; a failure is logged and answered as the provider's `failure` says. */
  async function atProvider<T>(
    manager: SubscriptionManager,
    info: Record<string, unknown>,
    what: string,
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      return await call()
    } catch (error) {
      // A declined charge (402) is the provider's clear answer, already in the user's terms.
      if (error instanceof AppError) throw error
      log({ ...info, error: error instanceof Error ? error.message : String(error) }, `${what}; nothing changed here`)
      throw manager.failure(error)
    }
  }

  async function setRenewal(userId: string, renew: boolean): Promise<SubscriptionView> {
    const row = await repo.currentSubscription(userId)
    if (!row) throw AppError.notFound('No paid plan to change')
    const providerSubscriptionId = row.providerSubscriptionId
    if (providerSubscriptionId === null || row.status === 'canceled') {
      if (!renew) return subscriptionView(row)
      throw AppError.conflict('This plan was paid for one period and does not renew', { reason: 'not-renewable' })
    }
    if (row.cancelAtPeriodEnd === !renew) return subscriptionView(row)
    const manager = managerOf(row.provider)
    // One key per intent and state: a doubled click is one change at the provider, while
    // cancelling again after a resume is a new request (the row's updatedAt moved).
    const key = `subscription:${providerSubscriptionId}:cancel_at_period_end=${!renew}:${row.updatedAt.getTime()}`
    await atProvider(
      manager,
      { userId, provider: row.provider, providerSubscriptionId, renew },
      'the provider did not change the renewal',
      () => manager.setRenewal(providerSubscriptionId, renew, key),
    )
    // The provider's echo (Stripe's customer.subscription.updated) is at most as new as this change
    // and is then ignored, or applies the same state again.
    const at = new Date()
    return repo.transaction(async (tx) => {
      const current = await repo.lockSubscriptionOf(tx, userId)
      if (!current) throw AppError.notFound('No paid plan to change')
      // Replaced by another purchase meanwhile: the change was for the old subscription.
      if (current.providerSubscriptionId !== providerSubscriptionId) return subscriptionView(current)
      const lastEventAt = current.lastEventAt && current.lastEventAt > at ? current.lastEventAt : at
      await repo.updateSubscription(tx, userId, { cancelAtPeriodEnd: !renew, lastEventAt })
      log({ userId, providerSubscriptionId, renews: renew }, renew ? 'plan resumed' : 'plan cancelled at period end')
      return subscriptionView({ ...current, cancelAtPeriodEnd: !renew, lastEventAt })
    })
  }

  async function resumeThenReload(userId: string): Promise<SubscriptionRow> {
    await setRenewal(userId, true)
    const row = await repo.currentSubscription(userId)
    if (!row) throw AppError.notFound('No paid plan to change')
    return row
  }

  return {
    setRenewal,

    /**
     * An upgrade or a switch to yearly of a running card plan (ADR 025): a change of the one
     * subscription at its provider, never a second one. The provider charges the prorated
     * difference to the saved card at once; the plan changes here from its answer, the same way
     * its webhook will say it again.
     */
    async changePlan(userId: string, held: SubscriptionRow, plan: Plan, billingCycle: BillingCycle) {
      const providerSubscriptionId = held.providerSubscriptionId ?? ''
      // Changing a plan set to end means keeping it: the renewal comes back first (its own call).
      const row = held.cancelAtPeriodEnd ? await resumeThenReload(userId) : held
      const manager = managerOf(row.provider)
      // One key per intended change and state: a doubled click is one change at the provider.
      const key = `subscription:${providerSubscriptionId}:plan=${plan.planId}:${billingCycle}:${row.updatedAt.getTime()}`
      const outcome: SubscriptionChanged = await atProvider(
        manager,
        { userId, provider: row.provider, providerSubscriptionId, planId: plan.planId },
        'the provider did not change the plan',
        () =>
          manager.changePlan({
            providerSubscriptionId,
            planId: plan.planId,
            planName: planName(plan),
            billingCycle,
            amount: billingCycle === 'yearly' ? plan.priceYearly : plan.priceMonthly,
            currency: plan.currency,
            idempotencyKey: key,
            current: { billingCycle: row.billingCycle, currentPeriodEnd: row.currentPeriodEnd },
          }),
      )
      const list = await deps.plans.listPlans()
      const at = new Date()
      return repo.transaction(async (tx) => {
        await deps.outcomes.apply(tx, outcome, at, list)
        const current = await repo.lockSubscriptionOf(tx, userId)
        if (!current) throw AppError.notFound('No paid plan to change')
        return subscriptionView(current)
      })
    },

    /** The `refund-duplicate-subscription` job (ADR 025); safe to run again. */
    async refundDuplicate(payload: JobPayloads['refund-duplicate-subscription']) {
      const order = await repo.findOrder(payload.orderId)
      if (!order) throw new Error(`Order ${payload.orderId} not found: the second subscription waits`)
      const refund = deps.gateways.of(order.provider)?.subscriptions?.cancelAndRefund
      if (!refund) throw new Error(`${order.provider} is not configured: the second subscription waits`)
      const { refunded } = await refund(payload.providerSubscriptionId, payload.orderId)
      log({ ...payload, refunded }, 'second subscription cancelled at its provider and refunded')
    },
  }
}
