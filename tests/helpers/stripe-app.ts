import { expect } from 'vitest'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

/** A signed webhook delivery as the Stripe double makes them. */
export type StripeDelivery = { payload: string; signature: string }
type Session = Awaited<ReturnType<TestApp['login']>>
/** The diamonds the shipped Plus plan grants each period. */
export const PLUS_DIAMONDS = 1000

/**
 * The whole API with card payments at the Stripe double (real Stripe wire protocol and signed
 * webhooks), plus the two steps most payment tests take: delivering a webhook and starting a
 * Checkout for the Plus plan.
 */
export async function startStripeTestApp(name: string) {
  const keys = { secretKey: `sk_test_${name}`, webhookSecret: `whsec_test_${name}` }
  const stripe: StripeApiDouble = await startStripeApi(keys)
  const t: TestApp = await buildTestApp({
    env: {
      STRIPE_SECRET_KEY: keys.secretKey,
      STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
      STRIPE_API_URL: stripe.url,
      PAYMENTS_SANDBOX: 'false',
    },
  })

  const deliver = (delivery: StripeDelivery) =>
    t.app.inject({
      method: 'POST',
      url: '/api/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
      payload: delivery.payload,
    })

  /** Orders the Plus plan by card; returns the order and the Checkout Session the double holds for it. */
  async function checkout(session: Session, billingCycle: 'monthly' | 'yearly' = 'monthly') {
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/subscription', payload: { paymentType: 'card', planId: 'plus', billingCycle } },
      session,
    )
    expect(res.statusCode).toBe(200)
    const { orderId, paymentUrl } = res.json().data as { orderId: string; paymentUrl: string }
    const checkoutSession = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId)
    if (!checkoutSession) throw new Error(`the Stripe double has no Checkout Session for order ${orderId}`)
    return { orderId, paymentUrl, checkoutSession: checkoutSession as Record<string, unknown> & { id: string } }
  }

  /** Delivers each webhook, expecting each accepted. */
  async function deliverAll(deliveries: StripeDelivery[]) {
    for (const d of deliveries) expect((await deliver(d)).statusCode).toBe(200)
  }

  /** Buys the Plus plan by card to the end (Checkout paid, its webhooks delivered); the double's events cleared. */
  async function buyPlan(session: Session) {
    const { orderId, checkoutSession } = await checkout(session)
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(checkoutSession)
    await deliverAll([completed, invoicePaid])
    stripe.takeEvents()
    expect(await t.app.services.diamonds.balanceOf(session.user.id)).toBe(PLUS_DIAMONDS)
    return { orderId, subscriptionId }
  }

  /** The refund webhooks Stripe sent since the last call: refund.* and charge.refunded. */
  const refundEvents = () =>
    stripe.takeEvents().filter((e) => e.type.startsWith('refund.') || e.type === 'charge.refunded')

  return {
    t,
    stripe,
    deliver,
    deliverAll,
    checkout,
    buyPlan,
    refundEvents,
    close: async () => {
      await t.close()
      await stripe.close()
    },
  }
}

export type StripeTestApp = Awaited<ReturnType<typeof startStripeTestApp>>
