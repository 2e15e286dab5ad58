import { api } from '#app/lib/http.ts'
import type { Locale } from '#contracts/locales.ts'
import type { OrderStatus, PaymentStart, PaymentType } from '#contracts/payments.ts'
import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import type { BillingCycle } from '#contracts/plans.ts'

export function startPayment(paymentType: PaymentType, planId: string, billingCycle: BillingCycle, locale: Locale) {
  // Card plans renew by subscription; crypto pays one period.
  return api<PaymentStart>(paymentType === 'card' ? '/subscription' : '/payment', {
    method: 'POST',
    body: { planId, billingCycle, locale },
  })
}

/**
 * `POST /api/subscription` while a card plan runs: an upgrade or a switch to yearly changes that
 * subscription (the difference is charged to the saved card) and answers the plan as it now is.
 */
export function changePlan(planId: string, billingCycle: BillingCycle, locale: Locale) {
  return api<{ subscription: SubscriptionView }>('/subscription', {
    method: 'POST',
    body: { planId, billingCycle, locale },
  })
}

export function paymentStatus(orderId: string) {
  return api<{ orderId: string; status: OrderStatus }>('/payment/status', { method: 'POST', body: { orderId } })
}

/** The plan held beyond the free one, whether it renews and when its period ends; null: the free plan. */
export type CurrentSubscription = SubscriptionView | null

export function currentSubscription(signal?: AbortSignal) {
  return api<{ subscription: CurrentSubscription }>('/subscription/current', { signal })
}

/** `POST /api/subscription/cancel`: the plan stops renewing and stays until its period ends. */
export function cancelPlan() {
  return api<SubscriptionView>('/subscription/cancel', { method: 'POST' })
}

/** `POST /api/subscription/resume`: undoes a cancellation before the period ends. */
export function resumePlan() {
  return api<SubscriptionView>('/subscription/resume', { method: 'POST' })
}

export function settleSandbox(orderId: string, outcome: 'paid' | 'failed' | 'canceled') {
  return api<{ orderId: string; status: OrderStatus }>('/payment/sandbox', {
    method: 'POST',
    body: { orderId, outcome },
  })
}
