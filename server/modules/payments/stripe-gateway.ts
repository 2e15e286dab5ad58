import Stripe from 'stripe'
import type { BillingCycle } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { PaymentOutcome } from './payments.service.ts'

type Loose = Record<string, unknown> | null | undefined

export type CheckoutRequest = {
  orderId: string
  userId: string
  planId: string
  planName: string
  billingCycle: BillingCycle
  amount: number
  currency: string
  successUrl: string
  cancelUrl: string
}

/**
 * Card subscriptions through Stripe Checkout (subscription mode) with the official SDK. `apiUrl`
 * points the SDK at another Stripe-compatible server (stripe-mock, or the test double).
 */
export function createStripeGateway(options: { secretKey: string; webhookSecret: string; apiUrl?: string }) {
  const url = options.apiUrl ? new URL(options.apiUrl) : undefined
  const stripe = new Stripe(options.secretKey, {
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

  return {
    async createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }> {
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
      return { id: session.id, url: session.url }
    },

    /**
     * Stops (`true`) or restores (`false`) the renewal of a subscription at the end of its paid
     * period. The key makes a retried or doubled request one change at Stripe; the caller makes it
     * differ for each new intent (a key is answered from Stripe's cache for 24 hours).
     */
    async setCancelAtPeriodEnd(
      subscriptionId: string,
      cancelAtPeriodEnd: boolean,
      idempotencyKey: string,
    ): Promise<{ id: string; cancelAtPeriodEnd: boolean; status: string }> {
      const subscription = await stripe.subscriptions.update(
        subscriptionId,
        { cancel_at_period_end: cancelAtPeriodEnd },
        { idempotencyKey },
      )
      return {
        id: subscription.id,
        cancelAtPeriodEnd: subscription.cancel_at_period_end,
        status: subscription.status,
      }
    },

    /**
     * Moves a subscription to another plan or cycle (ADR 025): its one item gets the new Price,
     * Stripe invoices the prorated difference at once (`always_invoice`), and with
     * `pending_if_incomplete` the change only takes effect if that invoice is paid; otherwise the
     * answer carries `pending_update` and the subscription stays as it was. The Price is found by
     * its lookup key (plan, cycle, amount, currency) or created once, carrying the plan in its
     * metadata so the subscription's events say which plan it now is.
     */
    async changePlan(request: {
      subscriptionId: string
      planId: string
      planName: string
      billingCycle: BillingCycle
      amount: number
      currency: string
      idempotencyKey: string
    }): Promise<Stripe.Subscription> {
      const subscription = await stripe.subscriptions.retrieve(request.subscriptionId)
      const item = subscription.items.data[0]
      if (!item) throw new Error(`Stripe subscription ${request.subscriptionId} has no item`)
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
      return stripe.subscriptions.update(
        request.subscriptionId,
        {
          items: [{ id: item.id, price: price.id }],
          proration_behavior: 'always_invoice',
          payment_behavior: 'pending_if_incomplete',
        },
        { idempotencyKey: request.idempotencyKey },
      )
    },

    /**
     * Closes an open Checkout Session so it can no longer be paid (ADR 025), and says what became
     * of it: `expired`, or `complete` when it was paid before we could close it. Stripe expires only
     * an open session and refuses the rest, so a refusal is answered by reading the session; one
     * Stripe does not know (`missing`) cannot be paid either. Outages throw.
     */
    async expireCheckout(sessionId: string): Promise<'expired' | 'complete' | 'open' | 'missing'> {
      const known = (status: string | null) => (status === 'expired' || status === 'complete' ? status : 'open')
      try {
        return known((await stripe.checkout.sessions.expire(sessionId)).status)
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error
        if (error.code === 'resource_missing') return 'missing'
        return known((await stripe.checkout.sessions.retrieve(sessionId)).status)
      }
    },

    /**
     * Ends a second subscription a race let through (ADR 025) and gives its money back: cancelled
     * at once without proration credit (`invoice_now` and `prorate` false: the refund returns it
     * all), then every paid payment of its latest invoice refunded in full. Safe to run again: the
     * keys make a retry one cancellation and one refund at Stripe, an ended subscription is not
     * cancelled twice, and a payment refunded before (after the keys' 24 hours) counts as done.
     */
    async cancelAndRefund(subscriptionId: string, orderId: string): Promise<{ refunded: number }> {
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
          if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'charge_already_refunded')
            continue
          throw error
        }
      }
      return { refunded }
    },

    /** The event, when the signature over the exact raw body is Stripe's; throws otherwise. */
    verify(rawBody: Buffer, signature: string): Stripe.Event {
      return stripe.webhooks.constructEvent(rawBody, signature, options.webhookSecret)
    },
  }
}

/**
 * What a failed Stripe call means for the caller: Stripe refused the request (a 4xx, such as a
 * subscription it already ended) or could not be reached or failed (outage, timeout, 5xx).
 */
export function stripeFailure(error: unknown): AppError {
  if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeCardError) {
    return AppError.conflict('The payment provider refused the change; nothing was changed', {
      reason: 'provider-refused',
    })
  }
  return new AppError(503, 'SERVICE_UNAVAILABLE', 'The payment provider could not be reached; nothing was changed')
}

/**
 * A Stripe subscription as it stands (from `customer.subscription.updated` or from the answer to our
 * own update): its renewal, status and, from its item's Price, the plan and cycle it now bills
 * (ADR 025). Prices made for a plan change carry the plan in their metadata; the Price Checkout
 * made inline has none, and the subscription's own metadata (set at Checkout) names the plan then.
 */
export function subscriptionChange(object: Record<string, unknown>): PaymentOutcome {
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

export type StripeGateway = ReturnType<typeof createStripeGateway>
export type StripeEvent = Stripe.Event
