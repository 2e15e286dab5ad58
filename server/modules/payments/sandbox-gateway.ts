import { AppError } from '#server/lib/errors.ts'
import { type CheckoutGateway, type PaymentOutcome, sitePageUrl } from './gateway.ts'
import type { OrderRow } from './payments.repo.ts'
import { addPeriod } from './plan-change.ts'

/** A sandbox card plan stands in for a Stripe subscription, so it gets an id in the same place. */
export const sandboxSubscriptionId = (orderId: string) => `sandbox_sub_${orderId.slice(4)}`

/**
 * The sandbox (PAYMENTS_SANDBOX, never in production): stands in for the missing providers of
 * both payment types, with no money and no outside server. Its checkout is a page of the site whose
 * buttons settle the order (`sandboxOutcome`) on the same path as a provider's webhook; a sandbox
 * card plan renews, cancels and changes plan like a Stripe one, with nobody to tell.
 */
export function createSandboxGateway(publicUrl: string): CheckoutGateway {
  return {
    provider: 'sandbox',
    paymentTypes: ['card', 'crypto'],

    async startCheckout(request) {
      const paymentUrl = sitePageUrl(publicUrl, request.locale, `/subscribe/sandbox?orderId=${request.orderId}`)
      return { providerRef: null, paymentUrl }
    },

    // Its checkouts are pages of the site with nothing open elsewhere: closing the order is enough.
    async closeCheckout() {
      return 'closed'
    },

    subscriptions: {
      // No provider to tell: the service's own change of the row is the whole change.
      async setRenewal() {},

      // The change is paid at once; a new cycle starts a new period now.
      async changePlan(request) {
        return {
          kind: 'subscription-changed',
          providerSubscriptionId: request.providerSubscriptionId,
          cancelAtPeriodEnd: false,
          status: 'active',
          planId: request.planId,
          billingCycle: request.billingCycle,
          periodEnd:
            request.billingCycle === request.current.billingCycle
              ? request.current.currentPeriodEnd
              : addPeriod(new Date(), request.billingCycle),
        }
      },

      // Nothing here calls out, so nothing fails but the database, which throws on its own.
      failure: () => new AppError(503, 'SERVICE_UNAVAILABLE', 'The sandbox could not change the plan'),
    },
  }
}

/** What the sandbox page's pay, fail and cancel buttons mean for an order, as a webhook would say it. */
export function sandboxOutcome(
  order: Pick<OrderRow, 'id' | 'paymentType'>,
  button: 'paid' | 'failed' | 'canceled',
): PaymentOutcome {
  if (button !== 'paid') return { kind: 'order-closed', orderId: order.id, status: button }
  return {
    kind: 'order-paid',
    orderId: order.id,
    ...(order.paymentType === 'card' ? { providerSubscriptionId: sandboxSubscriptionId(order.id) } : {}),
  }
}
