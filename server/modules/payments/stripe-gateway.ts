import type Stripe from 'stripe'
import { AppError } from '#server/lib/errors.ts'
import {
  type CheckoutRequest,
  headerValue,
  type PaymentGateway,
  type PaymentOutcome,
  type PlanChangeRequest,
  type ProviderDefinition,
  type RefundRequest,
  type RefundState,
  type SubscriptionChanged,
} from './gateway.ts'
import type { RefundStatus } from './payments.repo.ts'

type Loose = Record<string, unknown> | null | undefined

const idOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof (value as Loose)?.id === 'string'
      ? String((value as Loose)?.id)
      : undefined

/**
 * The SDK, once a payment or a webhook first needs it (ADR 067): it holds ~6 MB that a server
 * taking no card payment, or none yet, does without.
 */
let sdk: typeof Stripe | undefined

async function loadSdk(): Promise<typeof Stripe> {
  sdk ??= (await import('stripe')).default
  return sdk
}

/** Whether `error` is the SDK's error of that class; nothing is, before the SDK is loaded. */
function isStripeError(
  error: unknown,
  name: 'StripeInvalidRequestError' | 'StripeCardError',
): error is Stripe.errors.StripeError {
  return sdk !== undefined && error instanceof sdk.errors[name]
}

/** Whether the SDK is in memory (the idle-memory tests check it is not, at start). */
export const stripeSdkLoaded = () => sdk !== undefined

/**
 * Card subscriptions through Stripe Checkout (subscription mode) with the official SDK. `apiUrl`
 * points the SDK at another Stripe-compatible server (stripe-mock, or the test double). The client
 * is made on the first call that needs it.
 */
export function createStripeGateway(options: {
  secretKey: string
  webhookSecret: string
  apiUrl?: string | undefined
}): PaymentGateway {
  const url = options.apiUrl ? new URL(options.apiUrl) : undefined
  let made: Stripe | undefined
  async function client(): Promise<Stripe> {
    const StripeSdk = await loadSdk()
    made ??= new StripeSdk(options.secretKey, {
      maxNetworkRetries: 1,
      timeout: 10_000,
      ...(url
        ? {
            host: url.hostname,
            port: url.port,
            protocol: url.protocol === 'http:' ? ('http' as const) : ('https' as const),
          }
        : {}),
    })
    return made
  }

  async function startCheckout(request: CheckoutRequest) {
    const stripe = await client()
    const metadata = {
      orderId: request.orderId,
      userId: request.userId,
      planId: request.planId,
      billingCycle: request.billingCycle,
    }
    const session = await stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        client_reference_id: request.orderId,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency.toLowerCase(),
              unit_amount: request.amount,
              recurring: { interval: request.billingCycle === 'yearly' ? 'year' : 'month' },
              product_data: { name: request.planName },
            },
          },
        ],
        metadata,
        // Copied onto the subscription and its invoices, so renewals find their way back.
        subscription_data: { metadata },
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      },
      // A retried request creates no second session.
      { idempotencyKey: `checkout:${request.orderId}` },
    )
    if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL')
    return { providerRef: session.id, paymentUrl: session.url }
  }

  /**
   * Moves a subscription to another plan or cycle (ADR 025): its one item gets the new Price,
   * Stripe invoices the prorated difference at once (`always_invoice`), and with
   * `pending_if_incomplete` the change only takes effect if that invoice is paid; otherwise the
   * answer carries `pending_update` and the subscription stays as it was. The Price is found by
   * its lookup key (plan, cycle, amount, currency) or created once, carrying the plan in its
   * metadata so the subscription's events say which plan it now is.
   */
  async function changePlan(request: PlanChangeRequest): Promise<SubscriptionChanged> {
    const stripe = await client()
    const subscription = await stripe.subscriptions.retrieve(request.providerSubscriptionId)
    const item = subscription.items.data[0]
    if (!item) throw new Error(`Stripe subscription ${request.providerSubscriptionId} has no item`)
    const currency = request.currency.toLowerCase()
    const lookupKey = `taleweave:${request.planId}:${request.billingCycle}:${request.amount}:${currency}`
    const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 })
    const price =
      found.data[0] ??
      (await stripe.prices.create(
        {
          currency,
          unit_amount: request.amount,
          recurring: { interval: request.billingCycle === 'yearly' ? 'year' : 'month' },
          product_data: { name: request.planName },
          lookup_key: lookupKey,
          metadata: { planId: request.planId, billingCycle: request.billingCycle },
        },
        { idempotencyKey: `price:${lookupKey}` },
      ))
    const answer = await stripe.subscriptions.update(
      request.providerSubscriptionId,
      {
        items: [{ id: item.id, price: price.id }],
        proration_behavior: 'always_invoice',
        payment_behavior: 'pending_if_incomplete',
      },
      { idempotencyKey: request.idempotencyKey },
    )
    // The prorated invoice was not paid: Stripe keeps the subscription as it was.
    if (answer.pending_update) {
      throw new AppError(402, 'PAYMENT_DECLINED', 'The card was declined; the plan did not change')
    }
    return subscriptionChange(answer as unknown as Record<string, unknown>)
  }

  /**
   * Closes an open Checkout Session so it can no longer be paid (ADR 025), and says what became
   * of it: `expired`, or `complete` when it was paid before we could close it. Stripe expires only
   * an open session and refuses the rest, so a refusal is answered by reading the session; one
   * Stripe does not know (`missing`) cannot be paid either. Outages throw.
   */
  async function expireCheckout(sessionId: string): Promise<'expired' | 'complete' | 'open' | 'missing'> {
    const stripe = await client()
    const known = (status: string | null) => (status === 'expired' || status === 'complete' ? status : 'open')
    try {
      return known((await stripe.checkout.sessions.expire(sessionId)).status)
    } catch (error) {
      if (!isStripeError(error, 'StripeInvalidRequestError')) throw error
      if (error.code === 'resource_missing') return 'missing'
      return known((await stripe.checkout.sessions.retrieve(sessionId)).status)
    }
  }

  /**
   * Ends a second subscription a race let through (ADR 025) and gives its money back: cancelled
   * at once without proration credit (`invoice_now` and `prorate` false: the refund returns it
   * all), then every paid payment of its latest invoice refunded in full. Safe to run again: the
   * keys make a retry one cancellation and one refund at Stripe, an ended subscription is not
   * cancelled twice, and a payment refunded before (after the keys' 24 hours) counts as done.
   */
  async function cancelAndRefund(subscriptionId: string, orderId: string): Promise<{ refunded: number }> {
    const stripe = await client()
    const subscription = await stripe.subscriptions.retrieve(subscriptionId)
    if (subscription.status !== 'canceled' && subscription.status !== 'incomplete_expired') {
      await stripe.subscriptions.cancel(
        subscriptionId,
        { invoice_now: false, prorate: false },
        { idempotencyKey: `duplicate:${subscriptionId}:cancel` },
      )
    }
    const invoiceId =
      typeof subscription.latest_invoice === 'string' ? subscription.latest_invoice : subscription.latest_invoice?.id
    if (!invoiceId) return { refunded: 0 }
    const payments = await stripe.invoicePayments.list({ invoice: invoiceId, status: 'paid', limit: 10 })
    let refunded = 0
    for (const { payment } of payments.data) {
      const intent = typeof payment.payment_intent === 'string' ? payment.payment_intent : payment.payment_intent?.id
      const charge = typeof payment.charge === 'string' ? payment.charge : payment.charge?.id
      const target = intent ? { payment_intent: intent } : charge ? { charge } : undefined
      if (!target) continue
      try {
        const refund = await stripe.refunds.create(
          { ...target, reason: 'duplicate', metadata: { orderId, subscriptionId } },
          { idempotencyKey: `duplicate:${subscriptionId}:refund:${intent ?? charge}` },
        )
        refunded += refund.amount
      } catch (error) {
        if (isStripeError(error, 'StripeInvalidRequestError') && error.code === 'charge_already_refunded') continue
        throw error
      }
    }
    return { refunded }
  }

  /**
   * Gives back `amount` of an order's payment (ADR 056). The order's Checkout Session names its
   * first invoice (or its subscription, whose latest invoice it then is), and that invoice's paid
   * payment is what is refunded. Our refund id is the idempotency key and rides in the metadata,
   * so a retried call is one refund at Stripe and its webhooks find our row.
   */
  async function refund(request: RefundRequest) {
    const stripe = await client()
    const session = await stripe.checkout.sessions.retrieve(request.providerRef)
    const loose = session as unknown as Record<string, unknown>
    const subscriptionId = idOf(loose.subscription)
    let invoiceId = idOf(loose.invoice)
    if (!invoiceId && subscriptionId) {
      invoiceId = idOf((await stripe.subscriptions.retrieve(subscriptionId)).latest_invoice)
    }
    let target: { payment_intent: string } | { charge: string } | undefined = idOf(loose.payment_intent)
      ? { payment_intent: String(idOf(loose.payment_intent)) }
      : undefined
    if (!target && invoiceId) {
      const payments = await stripe.invoicePayments.list({ invoice: invoiceId, status: 'paid', limit: 1 })
      const payment = payments.data[0]?.payment
      const intent = idOf(payment?.payment_intent)
      const charge = idOf(payment?.charge)
      target = intent ? { payment_intent: intent } : charge ? { charge } : undefined
    }
    if (!target) throw new Error(`Stripe holds no paid payment for Checkout Session ${request.providerRef}`)
    const created = await stripe.refunds.create(
      {
        ...target,
        amount: request.amount,
        reason: 'requested_by_customer',
        metadata: { orderId: request.orderId, refundId: request.refundId },
      },
      { idempotencyKey: `refund:${request.refundId}` },
    )
    return {
      refundId: request.refundId,
      providerRefundId: created.id,
      status: refundStatus(created.status),
      amount: created.amount,
      providerSubscriptionId: subscriptionId,
    }
  }

  return {
    provider: 'stripe',
    paymentTypes: ['card'],
    startCheckout,
    refunds: { refund, failure: stripeFailure },

    async closeCheckout(sessionId) {
      const status = await expireCheckout(sessionId)
      if (status === 'open') throw new Error(`Stripe left Checkout Session ${sessionId} open`)
      return status === 'complete' ? 'paid' : 'closed'
    },

    /** The event, when the signature over the exact raw body is Stripe's; a 400 otherwise. */
    async parseWebhook(rawBody, headers) {
      const stripe = await client()
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          headerValue(headers['stripe-signature']) ?? '',
          options.webhookSecret,
        )
      } catch {
        throw AppError.badRequest('Invalid signature')
      }
      return {
        event: { id: event.id, type: event.type, at: new Date(event.created * 1000) },
        outcome: stripeOutcome(event),
      }
    },

    subscriptions: {
      /**
       * Sets `cancel_at_period_end`. The key makes a retried or doubled request one change at
       * Stripe; the caller makes it differ for each new intent (Stripe answers a key from its cache
       * for 24 hours).
       */
      async setRenewal(subscriptionId, renew, idempotencyKey) {
        const stripe = await client()
        await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: !renew }, { idempotencyKey })
      },
      changePlan,
      cancelAndRefund,
      async cancelNow(subscriptionId, idempotencyKey) {
        const stripe = await client()
        await stripe.subscriptions.cancel(subscriptionId, { invoice_now: false, prorate: false }, { idempotencyKey })
      },
      failure: stripeFailure,
    },
  }
}

/** Card plans through Stripe, when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set. */
export const stripeProvider: ProviderDefinition = {
  provider: 'stripe',
  name: 'Stripe',
  paymentTypes: ['card'],
  create: ({ stripe }) =>
    stripe.secretKey && stripe.webhookSecret
      ? createStripeGateway({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, apiUrl: stripe.apiUrl })
      : undefined,
}

/**
 * What a failed Stripe call means for the caller: Stripe refused the request (a 4xx, such as a
 * subscription it already ended) or could not be reached or failed (outage, timeout, 5xx).
 */
export function stripeFailure(error: unknown): AppError {
  if (isStripeError(error, 'StripeInvalidRequestError') || isStripeError(error, 'StripeCardError')) {
    return AppError.conflict('The payment provider refused the change; nothing was changed', {
      reason: 'provider-refused',
    })
  }
  return new AppError(503, 'SERVICE_UNAVAILABLE', 'The payment provider could not be reached; nothing was changed')
}

/** What a Stripe event means for our orders and subscriptions; undefined for events we ignore. */
export function stripeOutcome(event: Stripe.Event): PaymentOutcome | undefined {
  const object = event.data.object as unknown as Record<string, unknown>
  const metadata = (object.metadata ?? {}) as Record<string, string>
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (object.mode !== 'subscription') return undefined
      if (object.payment_status !== 'paid' && object.payment_status !== 'no_payment_required') return undefined
      const orderId = metadata.orderId ?? (object.client_reference_id as string | undefined)
      if (!orderId) return undefined
      return {
        kind: 'order-paid',
        orderId,
        providerSubscriptionId: idOf(object.subscription),
        amount: typeof object.amount_total === 'number' ? object.amount_total : undefined,
        currency: typeof object.currency === 'string' ? object.currency : undefined,
      }
    }
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const orderId = metadata.orderId ?? (object.client_reference_id as string | undefined)
      if (!orderId) return undefined
      return {
        kind: 'order-closed',
        orderId,
        status: event.type === 'checkout.session.expired' ? 'expired' : 'failed',
      }
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      // The subscription moved under `parent.subscription_details` in recent API versions.
      const details = ((object.parent as Loose)?.subscription_details ?? {}) as Record<string, unknown>
      const subscriptionId = idOf(details.subscription) ?? idOf(object.subscription)
      if (!subscriptionId) return undefined
      const subMetadata = (details.metadata ?? {}) as Record<string, string>
      if (object.billing_reason === 'subscription_create') {
        // The first invoice may arrive before checkout.session.completed; either one settles the order.
        if (event.type !== 'invoice.paid' || !subMetadata.orderId) return undefined
        return { kind: 'order-paid', orderId: subMetadata.orderId, providerSubscriptionId: subscriptionId }
      }
      // A plan change whose prorated charge failed: with pending updates the subscription stays as
      // it was and keeps renewing (ADR 025), so this is no failed renewal.
      if (event.type === 'invoice.payment_failed' && object.billing_reason === 'subscription_update') return undefined
      if (event.type === 'invoice.payment_failed')
        return { kind: 'renewal-failed', providerSubscriptionId: subscriptionId }
      const lines = ((object.lines as Loose)?.data ?? []) as { period?: { end?: number } }[]
      const ends = lines.map((line) => line.period?.end ?? 0)
      const periodEnd = Math.max(...ends, typeof object.period_end === 'number' ? object.period_end : 0)
      return { kind: 'renewal-paid', providerSubscriptionId: subscriptionId, periodEnd: new Date(periodEnd * 1000) }
    }
    case 'customer.subscription.deleted': {
      const endedAt = typeof object.ended_at === 'number' ? object.ended_at : event.created
      return {
        kind: 'subscription-ended',
        providerSubscriptionId: String(object.id),
        endedAt: new Date(endedAt * 1000),
      }
    }
    case 'customer.subscription.updated':
      return subscriptionChange(object)
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed': {
      const refund = refundState(object)
      return refund ? { kind: 'refunds-changed', refunds: [refund] } : undefined
    }
    case 'charge.refunded': {
      // Older API versions list the charge's refunds here; recent ones send refund.* events instead.
      const listed = (((object.refunds as Loose)?.data ?? []) as Record<string, unknown>[]).map(refundState)
      const refunds = listed.filter((r): r is RefundState => r !== undefined)
      return refunds.length > 0 ? { kind: 'refunds-changed', refunds } : undefined
    }
    default:
      return undefined
  }
}

/**
 * A Stripe subscription as it stands (from `customer.subscription.updated` or from the answer to our
 * own update): its renewal, status and, from its item's Price, the plan and cycle it now bills
 * (ADR 025). Prices made for a plan change carry the plan in their metadata; the Price Checkout
 * made inline has none, and the subscription's own metadata (set at Checkout) names the plan then.
 */
export function subscriptionChange(object: Record<string, unknown>): SubscriptionChanged {
  const metadata = (object.metadata ?? {}) as Record<string, string>
  const item = (((object.items as Loose)?.data ?? []) as Record<string, unknown>[])[0]
  const price = (item?.price ?? {}) as Record<string, unknown>
  const priceMetadata = (price.metadata ?? {}) as Record<string, string>
  const interval = (price.recurring as Loose)?.interval
  const billingCycle =
    interval === 'year' ? 'yearly' : interval === 'month' ? 'monthly' : (metadata.billingCycle ?? undefined)
  return {
    kind: 'subscription-changed',
    providerSubscriptionId: String(object.id),
    cancelAtPeriodEnd: object.cancel_at_period_end === true,
    cancelAt: typeof object.cancel_at === 'number' ? new Date(object.cancel_at * 1000) : undefined,
    status: String(object.status),
    planId: priceMetadata.planId ?? metadata.planId,
    billingCycle: billingCycle === 'yearly' || billingCycle === 'monthly' ? billingCycle : undefined,
    periodEnd: typeof item?.current_period_end === 'number' ? new Date(item.current_period_end * 1000) : undefined,
  }
}

/** A Stripe Refund's status in our terms: `requires_action` and unknown ones are still pending. */
function refundStatus(status: string | null | undefined): RefundStatus {
  return status === 'succeeded' || status === 'failed' || status === 'canceled' ? status : 'pending'
}

/** A Stripe Refund object as a refund of ours; undefined for a refund not made by the console. */
function refundState(object: Record<string, unknown>): RefundState | undefined {
  const refundId = ((object.metadata ?? {}) as Record<string, string>).refundId
  if (!refundId || typeof object.id !== 'string') return undefined
  return {
    refundId,
    providerRefundId: object.id,
    status: refundStatus(typeof object.status === 'string' ? object.status : undefined),
    amount: typeof object.amount === 'number' ? object.amount : 0,
  }
}
