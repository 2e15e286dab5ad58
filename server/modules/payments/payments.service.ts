import type { Audit } from '#contracts/admin-audit.ts'
import type { Locale } from '#contracts/locales.ts'
import type { PaymentStart, PaymentStatus } from '#contracts/payments.ts'
import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import { createCheckouts } from './checkout.ts'
import type { PaymentGateways } from './gateways.ts'
import { createMoneyConsole } from './money-console.ts'
import type { PaymentsRepo, SubscriptionRow } from './payments.repo.ts'
import { decidePurchase } from './plan-change.ts'
import type { RefundsRepo } from './refunds.repo.ts'
import { createRefunds } from './refunds.ts'
import { sandboxOutcome } from './sandbox-gateway.ts'
import { subscriptionView } from './subscription-state.ts'
import { createSubscriptions } from './subscriptions.ts'
import { createWebhookOutcomes } from './webhook-outcomes.ts'

export type PaymentsDeps = {
  repo: PaymentsRepo
  /** The refunds an operator asked for (ADR 056); their webhooks settle them. */
  refunds: RefundsRepo
  /** The plans on sale and what each awards: entitlements' registry. */
  plans: Pick<Entitlements, 'listPlans'>
  diamonds: DiamondsService
  /** The providers configured (and the sandbox): the service speaks to them only through these. */
  gateways: PaymentGateways
  publicUrl: string
  log: (info: Record<string, unknown>, msg: string) => void
  /** Payment events an operator should see (a second subscription refunded), at warning level. */
  securityEvent?: (event: string, info: Record<string, unknown>) => void
  /** The refund of a second subscription runs as a durable job (ADR 025); needed with Stripe keys. */
  jobs?: Pick<JobQueue, 'enqueue'>
}

/**
 * Orders, subscriptions and the webhooks that settle them, composed from one file per part:
 * `checkout.ts` (a new checkout, one open at a time), `plan-change.ts` (what buying means while a
 * plan runs, ADR 025), `subscriptions.ts` (cancel, resume, change plan, refund a duplicate) and
 * `webhook-outcomes.ts` (what a provider's word does, exactly once). Providers are reached only
 * through `gateways` (README.md in this folder).
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const { repo, plans, log } = deps
  const securityEvent = deps.securityEvent ?? ((event, info) => log({ ...info, event }, 'security event'))
  const outcomes = createWebhookOutcomes({ ...deps, securityEvent })
  const subscriptions = createSubscriptions({ ...deps, outcomes })
  const checkouts = createCheckouts(deps)

  /** The paid plan whose period runs now, with its plan's terms; undefined on the free plan. */
  async function heldPlan(userId: string): Promise<{ row: SubscriptionRow; plan: Plan } | undefined> {
    const row = await repo.currentSubscription(userId)
    const plan = row && (await plans.listPlans()).find((p) => p.planId === row.planId)
    return row && plan ? { row, plan } : undefined
  }

  async function status(orderId: string): Promise<PaymentStatus> {
    const order = await repo.findOrder(orderId)
    if (!order) throw AppError.notFound('Unknown order')
    return { orderId: order.id, status: order.status, planId: order.planId, billingCycle: order.billingCycle }
  }

  return {
    /**
     * The money side of the operator console (ADR 056): lists, cancelling a plan (`money-console.ts`)
     * and refunds (`refunds.ts`), each action audited through `audit` (the console's audit log).
     */
    console(audit: Audit) {
      const money = createMoneyConsole({ ...deps, audit })
      const refunds = createRefunds({ ...deps, audit })
      return { ...money, refunds }
    },

    /**
     * Card: a checkout at the card provider (Stripe's in subscription mode, or the sandbox without
     * Stripe keys), or, while a card plan runs, a change of that subscription. Refuses the plan
     * already held and steps down (ADR 025).
     */
    async startCard(
      userId: string,
      planId: string,
      billingCycle: BillingCycle,
      locale: Locale,
    ): Promise<PaymentStart | { subscription: SubscriptionView }> {
      const plan = await checkouts.planToBuy(planId)
      const gateway = checkouts.gatewayFor('card')
      const held = await heldPlan(userId)
      if (held && decidePurchase(held, plan, billingCycle, 'card').kind === 'change') {
        return { subscription: await subscriptions.changePlan(userId, held.row, plan, billingCycle) }
      }
      return checkouts.open(gateway, 'card', { userId, plan, billingCycle, locale })
    },

    /** Crypto: an invoice for one period at the crypto provider (BTCPay, or the sandbox without its keys). */
    async startCrypto(
      userId: string,
      planId: string,
      billingCycle: BillingCycle,
      locale: Locale,
    ): Promise<PaymentStart> {
      const plan = await checkouts.planToBuy(planId)
      const gateway = checkouts.gatewayFor('crypto')
      // Refuses a lower plan and a renewing card plan; the plan held or a higher one goes on (ADR 025).
      decidePurchase(await heldPlan(userId), plan, billingCycle, 'crypto')
      return checkouts.open(gateway, 'crypto', { userId, plan, billingCycle, locale })
    },

    /** The `refund-duplicate-subscription` job (ADR 025); safe to run again. */
    refundDuplicate: subscriptions.refundDuplicate,

    /** Public: the status of an order and what it buys, nothing about its buyer. */
    status,

    /**
     * The one way a provider's word reaches orders and plans, whichever provider it came from (the
     * webhook routes, after the gateway verified and parsed the delivery). False for a replay.
     */
    handleEvent: outcomes.handleEvent,

    /** The sandbox's pay/fail/cancel button: the same path as a provider's webhook. */
    async settleSandbox(userId: string, orderId: string, outcome: 'paid' | 'failed' | 'canceled') {
      if (!deps.gateways.sandboxOn) throw AppError.notFound()
      const order = await repo.findOrder(orderId)
      if (!order || order.userId !== userId || order.provider !== 'sandbox') throw AppError.notFound('Unknown order')
      await outcomes.handleEvent(
        'sandbox',
        { id: `${orderId}:${outcome}`, type: outcome, at: new Date() },
        sandboxOutcome(order, outcome),
      )
      return status(orderId)
    },

    /** The plan the user holds now, with whether it renews; null on the free plan. */
    async current(userId: string): Promise<SubscriptionView | null> {
      const row = await repo.currentSubscription(userId)
      return row ? subscriptionView(row) : null
    },

    /**
     * Stops the renewal: the plan and its diamonds stay until the paid period ends, then the
     * provider ends the subscription (`customer.subscription.deleted`). A plan that does not renew
     * (crypto, or already cancelled) is answered as it is: there is nothing to cancel.
     */
    cancel: (userId: string) => subscriptions.setRenewal(userId, false),

    /** Undoes `cancel` before the period ends: the plan renews again. */
    resume: (userId: string) => subscriptions.setRenewal(userId, true),

    currentSubscription: repo.currentSubscription,
  }
}

export type PaymentsService = ReturnType<typeof createPaymentsService>
