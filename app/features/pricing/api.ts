import { api } from '#app/lib/http.ts'
import type { Locale } from '#contracts/locales.ts'
import type { OrderStatus, PaymentStart, PaymentType } from '#contracts/payments.ts'
import type { BillingCycle } from '#contracts/plans.ts'

export function startPayment(paymentType: PaymentType, planId: string, billingCycle: BillingCycle, locale: Locale) {
  // Card plans renew by subscription; crypto pays one period.
  return api<PaymentStart>(paymentType === 'card' ? '/subscription' : '/payment', {
    method: 'POST',
    body: { paymentType, planId, billingCycle, locale },
  })
}

export function paymentStatus(orderId: string) {
  return api<{ orderId: string; status: OrderStatus }>('/payment/status', { method: 'POST', body: { orderId } })
}

export type CurrentSubscription = {
  planId: string
  billingCycle: BillingCycle
  status: 'active' | 'past_due' | 'canceled'
  currentPeriodEnd: string
} | null

export function currentSubscription() {
  return api<{ subscription: CurrentSubscription }>('/subscription/current')
}

export function settleSandbox(orderId: string, outcome: 'paid' | 'failed' | 'canceled') {
  return api<{ orderId: string; status: OrderStatus }>('/payment/sandbox', {
    method: 'POST',
    body: { orderId, outcome },
  })
}
