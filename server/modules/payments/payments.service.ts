import { randomBytes } from 'node:crypto'
import { DEFAULT_LOCALE, type Locale } from '#contracts/locales.ts'
import type { OrderStatus, PaymentStart, PaymentStatus, PaymentType } from '#contracts/payments.ts'
import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import type { BtcpayGateway } from './btcpay-gateway.ts'
import type { OrderRow, PaymentProvider, PaymentsRepo, SubscriptionRow } from './payments.repo.ts'
import { convertTime, decidePurchase, liveSubscription } from './plan-change.ts'
import { type StripeGateway, stripeFailure, subscriptionChange } from './stripe-gateway.ts'

/** The end of one paid period starting at `from`: a calendar month or year later. */
export function addPeriod(from: Date, cycle: BillingCycle): Date {
  const end = new Date(from)
  if (cycle === 'yearly') end.setUTCFullYear(end.getUTCFullYear() + 1)
  else end.setUTCMonth(end.getUTCMonth() + 1)
  // 31 January + 1 month is 3 March in JavaScript; clamp to the month's last day instead.
  if (cycle === 'monthly' && end.getUTCDate() !== from.getUTCDate()) end.setUTCDate(0)
  return end
}

const planName = (plan: Plan) => `${plan.planId.charAt(0).toUpperCase()}${plan.planId.slice(1)}`

export function newOrderId(): string {
  return `ord_${randomBytes(16).toString('base64url')}`
}

/** A sandbox card plan stands in for a Stripe subscription, so it gets an id in the same place. */
export const sandboxSubscriptionId = (orderId: string) => `sandbox_sub_${orderId.slice(4)}`

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

export type PaymentsDeps = {
  repo: PaymentsRepo
  /** The plans on sale and what each awards: entitlements' registry. */
  plans: Pick<Entitlements, 'listPlans'>
  diamonds: DiamondsService
  stripe?: StripeGateway
  btcpay?: BtcpayGateway
  sandbox: boolean
  publicUrl: string
  log: (info: Record<string, unknown>, msg: string) => void
}

/** What a provider told us happened to an order or a subscription, in provider-neutral terms. */
export type PaymentOutcome =
  | { kind: 'order-paid'; orderId: string; providerSubscriptionId?: string; amount?: number; currency?: string }
  | { kind: 'order-closed'; orderId: string; status: Exclude<OrderStatus, 'pending' | 'paid'> }
  | { kind: 'renewal-paid'; providerSubscriptionId: string; periodEnd: Date }
  | { kind: 'renewal-failed'; providerSubscriptionId: string }
  | { kind: 'subscription-ended'; providerSubscriptionId: string; endedAt: Date }
  | {
      kind: 'subscription-changed'
      providerSubscriptionId: string
      cancelAtPeriodEnd: boolean
      /** Stripe's `cancel_at`: a set end time, which also stops the renewal when it is the period end. */
      cancelAt?: Date | undefined
      status: string
      /** The plan and cycle the subscription now bills, and its period end (ADR 025); absent when unknown. */
      planId?: string | undefined
      billingCycle?: BillingCycle | undefined
      periodEnd?: Date | undefined
    }

/**
 * Orders, subscriptions and the webhooks that settle them. Every provider event goes through
 * `handleEvent`, which records the event and applies its outcome in one transaction: a replay is
 * recognised and changes nothing, an error rolls everything back so the provider's retry can
 * succeed, and diamonds are credited under references that can only count once.
 */
export function createPaymentsService(deps: PaymentsDeps) {
  const { repo, plans, diamonds, log } = deps

  function pageUrl(locale: Locale, path: string) {
    return `${deps.publicUrl}${locale === DEFAULT_LOCALE ? '' : `/${locale}`}${path}`
  }

  async function planToBuy(planId: string): Promise<Plan> {
    const plan = (await plans.listPlans()).find((p) => p.planId === planId)
    if (!plan) throw AppError.badRequest('Unknown plan', { field: 'planId' })
    if (plan.free) throw AppError.badRequest('The free plan is not for sale', { field: 'planId' })
    return plan
  }

  /** The paid plan whose period runs now, with its plan's terms; undefined on the free plan. */
  async function heldPlan(userId: string): Promise<{ row: SubscriptionRow; plan: Plan } | undefined> {
    const row = await repo.currentSubscription(userId)
    const plan = row && (await plans.listPlans()).find((p) => p.planId === row.planId)
    return row && plan ? { row, plan } : undefined
  }

  async function createOrder(
    userId: string,
    plan: Plan,
    billingCycle: BillingCycle,
    paymentType: PaymentType,
    provider: PaymentProvider,
  ): Promise<OrderRow> {
    const order = {
      id: newOrderId(),
      userId,
      planId: plan.planId,
      billingCycle,
      paymentType,
      provider,
      providerRef: null,
      status: 'pending' as const,
      amount: billingCycle === 'yearly' ? plan.priceYearly : plan.priceMonthly,
      currency: plan.currency,
      createdAt: new Date(),
      updatedAt: new Date(),
      paidAt: null,
    }
    await repo.insertOrder(order)
    return order
  }

  function sandboxStart(order: OrderRow, locale: Locale): PaymentStart {
    return { orderId: order.id, paymentUrl: pageUrl(locale, `/subscribe/sandbox?orderId=${order.id}`) }
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
        const newer = !sub.lastEventAt || eventAt >= sub.lastEventAt
        await repo.updateSubscription(tx, sub.userId, {
          currentPeriodEnd: periodEnd,
          // A renewal Stripe charged means the subscription renews, whatever an older cancel said.
          ...(newer ? { status: 'active' as const, cancelAtPeriodEnd: false, lastEventAt: eventAt } : {}),
        })
        // The month the renewal was paid in: that month's diamonds, once.
        await creditMonth(tx, sub.userId, sub.planId, eventAt, list)
        return
      }
      case 'renewal-failed': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        if (!sub) throw AppError.conflict('Subscription not known (yet)')
        if (sub.lastEventAt && eventAt < sub.lastEventAt) return
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
      case 'subscription-changed': {
        const sub = await repo.lockSubscriptionByProviderId(tx, outcome.providerSubscriptionId)
        // An ended subscription stays ended; a change older than the last one applied (a webhook or
        // our own cancel/resume call) is stale.
        if (!sub || sub.status === 'canceled' || (sub.lastEventAt && eventAt < sub.lastEventAt)) return
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
        const plan = outcome.planId ? list.find((p) => p.planId === outcome.planId && !p.free) : undefined
        const billingCycle = outcome.billingCycle ?? sub.billingCycle
        const changed = plan !== undefined && (plan.planId !== sub.planId || billingCycle !== sub.billingCycle)
        await repo.updateSubscription(tx, sub.userId, {
          status,
          cancelAtPeriodEnd,
          lastEventAt: eventAt,
          ...(changed
            ? { planId: plan.planId, billingCycle, currentPeriodEnd: outcome.periodEnd ?? sub.currentPeriodEnd }
            : {}),
        })
        // The month's diamonds become the new plan's, once: the difference, under its reference.
        if (changed) await diamonds.topUpPlanMonth(sub.userId, plan.planId, plan.diamondsPerMonth, eventAt, tx)
        if (changed) log({ userId: sub.userId, from: sub.planId, to: plan.planId, billingCycle }, 'plan changed')
        return
      }
    }
  }

  // Plans are read before a transaction opens: on the embedded database a query outside the
  // transaction would wait for it to finish, forever.
  async function creditMonth(tx: Tx, userId: string, planId: string, at: Date, list: Plan[]) {
    const plan = list.find((p) => p.planId === planId)
    if (plan) await diamonds.creditPlanMonth(userId, plan.planId, plan.diamondsPerMonth, at, tx)
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
    if (order.status === 'paid') return
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
    // Two checkouts opened before either was paid (ADR 025): the newer replaces the row.
    if (running && liveSubscription(running) && running.providerSubscriptionId !== outcome.providerSubscriptionId) {
      log(
        { orderId: order.id, userId, replaced: running.providerSubscriptionId },
        'a second card subscription was paid: cancel and refund the replaced one',
      )
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
   * A one-off (crypto) period paid while a plan runs (ADR 025): the plan held is extended from its
   * end; a higher plan starts now and the days left on the old one become days of the new one. The
   * start refused everything else, so a lower plan or a renewing card plan here means the state
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
      log(
        { orderId: order.id, userId, planId: order.planId, held: running.planId },
        'crypto payment while a card subscription renews: refund it; the card plan is left as it is',
      )
      return
    }
    const boughtEnd = addPeriod(now, order.billingCycle)
    let planId = held.planId
    let billingCycle = running.billingCycle
    let end: Date
    if (bought.planId === held.planId) {
      billingCycle = order.billingCycle
      end = addPeriod(running.currentPeriodEnd, order.billingCycle)
    } else if (bought.priceMonthly > held.priceMonthly) {
      planId = bought.planId
      billingCycle = order.billingCycle
      const left = running.currentPeriodEnd.getTime() - now.getTime()
      end = new Date(boughtEnd.getTime() + convertTime(left, held, running.billingCycle, bought, order.billingCycle))
    } else {
      const boughtMs = boughtEnd.getTime() - now.getTime()
      end = new Date(
        running.currentPeriodEnd.getTime() +
          convertTime(boughtMs, bought, order.billingCycle, held, running.billingCycle),
      )
    }
    await repo.upsertSubscription(tx, {
      userId,
      planId,
      billingCycle,
      provider: order.provider,
      // A cancelled card subscription still at the provider ends on its own; its end event then
      // finds no row and changes nothing.
      providerSubscriptionId: null,
      status: 'active',
      currentPeriodEnd: end,
      cancelAtPeriodEnd: false,
      lastEventAt: eventAt,
    })
    const plan = list.find((p) => p.planId === planId)
    if (plan && planId !== running.planId) {
      await diamonds.topUpPlanMonth(userId, planId, plan.diamondsPerMonth, now, tx)
    } else await creditMonth(tx, userId, planId, now, list)
    log({ orderId: order.id, userId, planId, currentPeriodEnd: end.toISOString() }, 'one-off period paid')
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
    if (row.provider === 'stripe') {
      if (!deps.stripe) throw new AppError(503, 'SERVICE_UNAVAILABLE', 'Card payments are not configured')
      // One key per intent and state: a doubled click is one change at Stripe, while cancelling
      // again after a resume is a new request (the row's updatedAt moved).
      const key = `subscription:${providerSubscriptionId}:cancel_at_period_end=${!renew}:${row.updatedAt.getTime()}`
      try {
        await deps.stripe.setCancelAtPeriodEnd(providerSubscriptionId, !renew, key)
      } catch (error) {
        log(
          { userId, providerSubscriptionId, renew, error: error instanceof Error ? error.message : String(error) },
          'Stripe did not change the renewal; nothing changed here',
        )
        throw stripeFailure(error)
      }
    }
    // The sandbox has no provider to tell. Stripe's echo (customer.subscription.updated) is at most
    // as new as this change and is then ignored, or applies the same state again.
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

  /**
   * An upgrade or a switch to yearly of a running card plan (ADR 025): a change of the one
   * subscription at Stripe, never a second one. Stripe charges the prorated difference to the saved
   * card at once; the plan changes here from its answer, the same way its webhook will say it again.
   */
  async function changeCardPlan(userId: string, held: SubscriptionRow, plan: Plan, billingCycle: BillingCycle) {
    const providerSubscriptionId = held.providerSubscriptionId ?? ''
    // Changing a plan set to end means keeping it: the renewal comes back first (its own call).
    const row = held.cancelAtPeriodEnd ? await resumeThenReload(userId) : held
    let outcome: PaymentOutcome
    if (row.provider === 'stripe') {
      if (!deps.stripe) throw new AppError(503, 'SERVICE_UNAVAILABLE', 'Card payments are not configured')
      // One key per intended change and state: a doubled click is one change at Stripe.
      const key = `subscription:${providerSubscriptionId}:plan=${plan.planId}:${billingCycle}:${row.updatedAt.getTime()}`
      let answer: Awaited<ReturnType<StripeGateway['changePlan']>>
      try {
        answer = await deps.stripe.changePlan({
          subscriptionId: providerSubscriptionId,
          planId: plan.planId,
          planName: planName(plan),
          billingCycle,
          amount: billingCycle === 'yearly' ? plan.priceYearly : plan.priceMonthly,
          currency: plan.currency,
          idempotencyKey: key,
        })
      } catch (error) {
        log(
          {
            userId,
            providerSubscriptionId,
            planId: plan.planId,
            error: error instanceof Error ? error.message : String(error),
          },
          'Stripe did not change the plan; nothing changed here',
        )
        throw stripeFailure(error)
      }
      // The prorated invoice was not paid: Stripe keeps the subscription as it was.
      if (answer.pending_update) {
        throw new AppError(402, 'PAYMENT_DECLINED', 'The card was declined; the plan did not change')
      }
      outcome = subscriptionChange(answer as unknown as Record<string, unknown>)
    } else {
      // The sandbox stands in for Stripe: the change is paid at once, a new cycle starts a new period.
      outcome = {
        kind: 'subscription-changed',
        providerSubscriptionId,
        cancelAtPeriodEnd: false,
        status: 'active',
        planId: plan.planId,
        billingCycle,
        periodEnd: billingCycle === row.billingCycle ? row.currentPeriodEnd : addPeriod(new Date(), billingCycle),
      }
    }
    const list = await plans.listPlans()
    const at = new Date()
    return repo.transaction(async (tx) => {
      await apply(tx, outcome, at, list)
      const current = await repo.lockSubscriptionOf(tx, userId)
      if (!current) throw AppError.notFound('No paid plan to change')
      return subscriptionView(current)
    })
  }

  async function resumeThenReload(userId: string): Promise<SubscriptionRow> {
    await setRenewal(userId, true)
    const row = await repo.currentSubscription(userId)
    if (!row) throw AppError.notFound('No paid plan to change')
    return row
  }

  return {
    /**
     * Card: a Stripe Checkout Session in subscription mode (or the sandbox without Stripe keys), or,
     * while a card plan runs, a change of that subscription. Refuses the plan already held and
     * steps down (ADR 025).
     */
    async startCard(
      userId: string,
      planId: string,
      billingCycle: BillingCycle,
      locale: Locale,
    ): Promise<PaymentStart | { subscription: SubscriptionView }> {
      const plan = await planToBuy(planId)
      if (!deps.stripe && !deps.sandbox) {
        throw new AppError(503, 'SERVICE_UNAVAILABLE', 'Card payments are not configured')
      }
      const held = await heldPlan(userId)
      if (held && decidePurchase(held, plan, billingCycle, 'card').kind === 'change') {
        return { subscription: await changeCardPlan(userId, held.row, plan, billingCycle) }
      }
      const order = await createOrder(userId, plan, billingCycle, 'card', deps.stripe ? 'stripe' : 'sandbox')
      if (!deps.stripe) return sandboxStart(order, locale)
      const session = await deps.stripe.createCheckout({
        orderId: order.id,
        userId,
        planId: plan.planId,
        planName: planName(plan),
        billingCycle,
        amount: order.amount,
        currency: order.currency,
        successUrl: pageUrl(locale, `/subscribe/success?orderId=${order.id}`),
        cancelUrl: pageUrl(locale, '/subscribe'),
      })
      await repo.setProviderRef(order.id, session.id)
      return { orderId: order.id, paymentUrl: session.url }
    },

    /** Crypto: a BTCPay invoice for one period (or the sandbox without BTCPay keys). */
    async startCrypto(
      userId: string,
      planId: string,
      billingCycle: BillingCycle,
      locale: Locale,
    ): Promise<PaymentStart> {
      const plan = await planToBuy(planId)
      if (!deps.btcpay && !deps.sandbox) {
        throw new AppError(503, 'SERVICE_UNAVAILABLE', 'Crypto payments are not configured')
      }
      // Refuses a lower plan and a renewing card plan; the plan held or a higher one goes on (ADR 025).
      decidePurchase(await heldPlan(userId), plan, billingCycle, 'crypto')
      const order = await createOrder(userId, plan, billingCycle, 'crypto', deps.btcpay ? 'btcpay' : 'sandbox')
      if (!deps.btcpay) return sandboxStart(order, locale)
      const invoice = await deps.btcpay.createInvoice({
        orderId: order.id,
        amount: order.amount,
        currency: order.currency,
        redirectUrl: pageUrl(locale, `/subscribe/success?orderId=${order.id}`),
        metadata: { userId, planId: plan.planId, billingCycle },
      })
      await repo.setProviderRef(order.id, invoice.id)
      return { orderId: order.id, paymentUrl: invoice.url }
    },

    /** Public: the status of an order and what it buys, nothing about its buyer. */
    async status(orderId: string): Promise<PaymentStatus> {
      const order = await repo.findOrder(orderId)
      if (!order) throw AppError.notFound('Unknown order')
      return { orderId: order.id, status: order.status, planId: order.planId, billingCycle: order.billingCycle }
    },

    /**
     * Handles one provider event exactly once: `eventId` is the provider's id for the delivery's
     * event. Returns false for a replay.
     */
    async handleEvent(
      provider: PaymentProvider,
      event: { id: string; type: string; at: Date },
      outcome: PaymentOutcome | undefined,
    ): Promise<boolean> {
      const list = await plans.listPlans()
      return repo.transaction(async (tx) => {
        if (!(await repo.recordEvent(tx, provider, event.id, event.type))) return false
        if (outcome) await apply(tx, outcome, event.at, list)
        return true
      })
    },

    /** The sandbox's pay/fail/cancel button: the same path as a provider's webhook. */
    async settleSandbox(userId: string, orderId: string, outcome: 'paid' | 'failed' | 'canceled') {
      if (!deps.sandbox) throw AppError.notFound()
      const order = await repo.findOrder(orderId)
      if (!order || order.userId !== userId || order.provider !== 'sandbox') throw AppError.notFound('Unknown order')
      await this.handleEvent(
        'sandbox',
        { id: `${orderId}:${outcome}`, type: outcome, at: new Date() },
        outcome === 'paid'
          ? {
              kind: 'order-paid',
              orderId,
              ...(order.paymentType === 'card' ? { providerSubscriptionId: sandboxSubscriptionId(orderId) } : {}),
            }
          : { kind: 'order-closed', orderId, status: outcome },
      )
      return this.status(orderId)
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
    cancel: (userId: string) => setRenewal(userId, false),

    /** Undoes `cancel` before the period ends: the plan renews again. */
    resume: (userId: string) => setRenewal(userId, true),

    currentSubscription: repo.currentSubscription,
  }
}

export type PaymentsService = ReturnType<typeof createPaymentsService>
