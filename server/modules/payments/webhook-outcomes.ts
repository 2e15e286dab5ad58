import type { Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { JobPayloads } from '#server/modules/jobs/job-queue.ts'
import type { PaymentOutcome, ProviderEvent } from './gateway.ts'
import type { OrderRow, PaymentProvider, SubscriptionRow } from './payments.repo.ts'
import type { PaymentsDeps } from './payments.service.ts'
import { addPeriod, liveSubscription, oneOffPeriod } from './plan-change.ts'
import { createRefundSettlement } from './refunds.ts'
import { isNewer, stateAfterChange } from './subscription-state.ts'

type OutcomeDeps = Pick<PaymentsDeps, 'repo' | 'refunds' | 'plans' | 'diamonds' | 'log' | 'jobs'> & {
  securityEvent: NonNullable<PaymentsDeps['securityEvent']>
}

/**
 * What a provider-neutral outcome does to orders, subscriptions and diamonds. Every provider event
 * goes through `handleEvent`, which records the event and applies its outcome in one transaction:
 * a replay is recognised and changes nothing, an error rolls everything back so the provider's
 * retry can succeed, and diamonds are credited under references that can only count once.
 */
export function createWebhookOutcomes(deps: OutcomeDeps) {
  const { repo, diamonds, log, securityEvent } = deps
  const settleRefund = createRefundSettlement(deps)

  // Plans are read before a transaction opens: on the embedded database a query outside the
  // transaction would wait for it to finish, forever.
  async function creditMonth(tx: Tx, userId: string, planId: string, at: Date, list: Plan[]) {
    const plan = list.find((p) => p.planId === planId)
    if (plan) await diamonds.creditPlanMonth(userId, plan.planId, plan.diamondsPerMonth, at, tx)
  }

  /** Applies an outcome inside the caller's transaction. */
  async function apply(tx: Tx, outcome: PaymentOutcome, eventAt: Date, list: Plan[]) {
    switch (outcome.kind) {
      case 'order-paid':
        return orderPaid(tx, outcome, eventAt, list)
      case 'order-closed': {
        const order = await repo.lockOrder(tx, outcome.orderId)
        if (!order) throw AppError.conflict('Order not known (yet)')
        // Only a pending order closes; a paid one stays paid whatever arrives later.
        if (order.status === 'pending') await repo.updateOrder(tx, order.id, { status: outcome.status })
        return
      }
      case 'renewal-paid': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        if (!sub) throw AppError.conflict('Subscription not known (yet)')
        const periodEnd = outcome.periodEnd > sub.currentPeriodEnd ? outcome.periodEnd : sub.currentPeriodEnd
        await repo.updateSubscription(tx, sub.userId, {
          currentPeriodEnd: periodEnd,
          // A renewal Stripe charged means the subscription renews, whatever an older cancel said.
          ...(isNewer(sub, eventAt)
            ? { status: 'active' as const, cancelAtPeriodEnd: false, lastEventAt: eventAt }
            : {}),
        })
        // The month the renewal was paid in: that month's diamonds, once.
        await creditMonth(tx, sub.userId, sub.planId, eventAt, list)
        return
      }
      case 'renewal-failed': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        if (!sub) throw AppError.conflict('Subscription not known (yet)')
        if (!isNewer(sub, eventAt)) return
        // The plan keeps what was paid for until the period ends; it just stops being renewed.
        if (sub.status === 'active')
          await repo.updateSubscription(tx, sub.userId, { status: 'past_due', lastEventAt: eventAt })
        return
      }
      case 'subscription-ended': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        if (!sub) return
        const end = outcome.endedAt < sub.currentPeriodEnd ? outcome.endedAt : sub.currentPeriodEnd
        await repo.updateSubscription(tx, sub.userId, {
          status: 'canceled',
          currentPeriodEnd: end,
          lastEventAt: eventAt,
        })
        return
      }
      case 'refunds-changed': {
        // The refund's row is locked and its diamonds taken back once, however often this arrives
        // and whether before or after the API's answer (ADR 056).
        for (const refund of outcome.refunds) await settleRefund(tx, refund)
        return
      }
      case 'subscription-changed': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        const next = sub && stateAfterChange(sub, outcome, eventAt, list)
        if (!sub || !next) return
        await repo.updateSubscription(tx, sub.userId, next.values)
        if (!next.plan) return
        // The month's diamonds become the new plan's, once: the difference, under its reference.
        await diamonds.topUpPlanMonth(sub.userId, next.plan.planId, next.plan.diamondsPerMonth, eventAt, tx)
        log(
          { userId: sub.userId, from: sub.planId, to: next.plan.planId, billingCycle: next.billingCycle },
          'plan changed',
        )
        return
      }
    }
  }

  async function orderPaid(
    tx: Tx,
    outcome: Extract<PaymentOutcome, { kind: 'order-paid' }>,
    eventAt: Date,
    list: Plan[],
  ) {
    const order = await repo.lockOrder(tx, outcome.orderId)
    // The provider retries later: by then the order's own write has committed.
    if (!order) throw AppError.conflict('Order not known (yet)')
    if (order.status === 'paid' || order.status === 'refunded') return
    if (
      (outcome.amount !== undefined && outcome.amount !== order.amount) ||
      (outcome.currency !== undefined && outcome.currency.toUpperCase() !== order.currency)
    ) {
      log({ orderId: order.id, amount: outcome.amount, currency: outcome.currency }, 'payment amount does not match')
      await repo.updateOrder(tx, order.id, { status: 'failed' })
      return
    }
    const now = new Date()
    await repo.updateOrder(tx, order.id, { status: 'paid', paidAt: now })
    const userId = order.userId
    // The buyer deleted their account while the payment was open (ADR 015): nobody to credit.
    if (!userId) {
      log(
        { orderId: order.id, provider: order.provider, providerSubscriptionId: outcome.providerSubscriptionId },
        'order paid for a deleted account: refund it (and cancel its subscription)',
      )
      return
    }
    const current = await repo.lockSubscriptionOf(tx, userId)
    const running = current && current.currentPeriodEnd > now ? current : undefined
    if (order.paymentType === 'crypto' && running) return oneOffPaid(tx, order, userId, running, eventAt, list)
    if (running && running.providerSubscriptionId !== outcome.providerSubscriptionId) {
      return secondSubscriptionPaid(tx, order, userId, running, outcome.providerSubscriptionId)
    }
    await repo.upsertSubscription(tx, {
      userId,
      planId: order.planId,
      billingCycle: order.billingCycle,
      provider: order.provider,
      providerSubscriptionId: outcome.providerSubscriptionId ?? null,
      status: 'active',
      currentPeriodEnd: addPeriod(now, order.billingCycle),
      cancelAtPeriodEnd: false,
      lastEventAt: eventAt,
    })
    await creditMonth(tx, userId, order.planId, now, list)
    log({ orderId: order.id, userId, planId: order.planId }, 'order paid')
  }

  /**
   * A card subscription paid while a plan already runs: two checkouts were open side by side and
   * both were paid, a race that closing the other checkouts at the start narrows but cannot close
   * (ADR 025). The plan held stays as it is; the new subscription is cancelled at its provider and
   * its payment refunded by a job, queued in this transaction so the event and the refund go
   * together, once per subscription whatever the provider delivers again.
   */
  async function secondSubscriptionPaid(
    tx: Tx,
    order: OrderRow,
    userId: string,
    running: SubscriptionRow,
    providerSubscriptionId: string | undefined,
  ) {
    await repo.updateOrder(tx, order.id, { status: 'refunded' })
    const info = {
      orderId: order.id,
      userId,
      provider: order.provider,
      providerSubscriptionId,
      held: running.providerSubscriptionId ?? running.planId,
    }
    // The sandbox has no money to give back: the order just says it was not kept.
    if (order.provider === 'sandbox') {
      securityEvent('payment.second-subscription', { ...info, refund: 'none (sandbox)' })
      return
    }
    if (!providerSubscriptionId || !deps.jobs) {
      // Nothing to act on automatically: the operator refunds it by hand.
      securityEvent('payment.second-subscription', { ...info, refund: 'by hand' })
      return
    }
    const payload: JobPayloads['refund-duplicate-subscription'] = { orderId: order.id, userId, providerSubscriptionId }
    await deps.jobs.enqueue('refund-duplicate-subscription', payload, { key: `refund:${providerSubscriptionId}` }, tx)
    securityEvent('payment.second-subscription', { ...info, refund: 'queued' })
  }

  /**
   * A one-off (crypto) period paid while a plan runs (ADR 025): `oneOffPeriod` says what the plan
   * becomes. The start refused everything else, so a renewing card plan here means the state
   * changed while the invoice was open: the money still buys time, never a second subscription.
   */
  async function oneOffPaid(
    tx: Tx,
    order: OrderRow,
    userId: string,
    running: SubscriptionRow,
    eventAt: Date,
    list: Plan[],
  ) {
    const now = new Date()
    const held = list.find((p) => p.planId === running.planId)
    const bought = list.find((p) => p.planId === order.planId)
    if (!held || !bought || (liveSubscription(running) && !running.cancelAtPeriodEnd)) {
      // Crediting it would overlap the time Stripe bills, and a crypto refund needs the buyer's
      // address: an operator refunds it by hand (the card plan is left as it is).
      securityEvent('payment.crypto-while-card-renews', {
        orderId: order.id,
        userId,
        planId: order.planId,
        held: running.planId,
        refund: 'by hand',
      })
      return
    }
    const next = oneOffPeriod(running, held, bought, order.billingCycle, now)
    await repo.upsertSubscription(tx, {
      userId,
      ...next,
      provider: order.provider,
      // A cancelled card subscription still at the provider ends on its own; its end event then
      // finds no row and changes nothing.
      providerSubscriptionId: null,
      status: 'active',
      cancelAtPeriodEnd: false,
      lastEventAt: eventAt,
    })
    const plan = list.find((p) => p.planId === next.planId)
    if (plan && next.planId !== running.planId) {
      await diamonds.topUpPlanMonth(userId, next.planId, plan.diamondsPerMonth, now, tx)
    } else await creditMonth(tx, userId, next.planId, now, list)
    log(
      { orderId: order.id, userId, planId: next.planId, currentPeriodEnd: next.currentPeriodEnd.toISOString() },
      'one-off period paid',
    )
  }

  return {
    apply,

    /**
     * Handles one provider event exactly once (`event.id` is the provider's id for it), whichever
     * provider it came from. Returns false for a replay.
     */
    async handleEvent(
      provider: PaymentProvider,
      event: ProviderEvent,
      outcome: PaymentOutcome | undefined,
    ): Promise<boolean> {
      const list = await deps.plans.listPlans()
      try {
        return await repo.transaction(async (tx) => {
          if (!(await repo.recordEvent(tx, provider, event.id, event.type))) return false
          if (outcome) await apply(tx, outcome, event.at, list)
          else await repo.setEventOutcome(tx, provider, event.id, 'ignored')
          return true
        })
      } catch (error) {
        // Rolled back; the console's list shows why, and the provider's retry is handled as new.
        const failure = error instanceof Error ? error.message : String(error)
        await repo.recordEventFailure(provider, event.id, event.type, failure.slice(0, 500)).catch(() => {})
        throw error
      }
    },
  }
}
