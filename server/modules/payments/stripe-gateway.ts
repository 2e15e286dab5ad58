import Stripe from 'stripe'
import type { BillingCycle } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'

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

export type StripeGateway = ReturnType<typeof createStripeGateway>
export type StripeEvent = Stripe.Event
