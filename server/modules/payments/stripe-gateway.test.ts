import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import type { CheckoutRequest, PaymentGateway } from './gateway.ts'
import { createStripeGateway } from './stripe-gateway.ts'

// The Stripe gateway alone, against the Stripe double: what the service asks of a provider
// (gateway.ts) in Stripe's words, and Stripe's signed webhooks turned into provider-neutral outcomes.

const keys = { secretKey: 'sk_test_gateway', webhookSecret: 'whsec_test_gateway' }
const request = (orderId: string): CheckoutRequest => ({
  orderId,
  userId: '00000000-0000-4000-8000-000000000001',
  planId: 'plus',
  planName: 'Plus',
  billingCycle: 'monthly',
  amount: 999,
  currency: 'USD',
  locale: 'en',
  successUrl: `https://taleweave.test/subscribe/success?orderId=${orderId}`,
  cancelUrl: 'https://taleweave.test/subscribe',
})
const parse = (gateway: PaymentGateway, delivery: { payload: string; signature: string }) =>
  gateway.parseWebhook(Buffer.from(delivery.payload), { 'stripe-signature': delivery.signature })

describe('the Stripe gateway', () => {
  let stripe: StripeApiDouble
  let gateway: PaymentGateway
  beforeAll(async () => {
    stripe = await startStripeApi(keys)
    gateway = createStripeGateway({ ...keys, apiUrl: stripe.url })
  })
  afterAll(() => stripe.close())

  it('opens a Checkout Session and turns its paid webhooks into one order-paid outcome', async () => {
    const checkout = await gateway.startCheckout(request('ord_gateway_paid_000000001'))
    const session = stripe.sessions.get(String(checkout.providerRef))
    expect(session).toMatchObject({ mode: 'subscription', client_reference_id: 'ord_gateway_paid_000000001' })
    expect(checkout.paymentUrl).toBe(session?.url)

    const paid = stripe.paidCheckout(session as Record<string, unknown>)
    const completed = await parse(gateway, paid.completed)
    expect(completed.event.type).toBe('checkout.session.completed')
    expect(completed.event.at).toBeInstanceOf(Date)
    expect(completed.outcome).toEqual({
      kind: 'order-paid',
      orderId: 'ord_gateway_paid_000000001',
      providerSubscriptionId: paid.subscriptionId,
      amount: 999,
      currency: 'usd',
    })
    // The first invoice may come first: it settles the same order.
    expect((await parse(gateway, paid.invoicePaid)).outcome).toEqual({
      kind: 'order-paid',
      orderId: 'ord_gateway_paid_000000001',
      providerSubscriptionId: paid.subscriptionId,
    })
    // A paid session cannot be closed any more: the service hears `paid`.
    expect(await gateway.closeCheckout(String(checkout.providerRef))).toBe('paid')
  })

  it('closes an open checkout, and Stripe then says it expired', async () => {
    const checkout = await gateway.startCheckout(request('ord_gateway_close_00000001'))
    expect(await gateway.closeCheckout(String(checkout.providerRef))).toBe('closed')
    const [expired] = stripe.takeEvents().filter((e) => e.type === 'checkout.session.expired')
    expect((await parse(gateway, expired as { payload: string; signature: string })).outcome).toEqual({
      kind: 'order-closed',
      orderId: 'ord_gateway_close_00000001',
      status: 'expired',
    })
  })

  it('refuses a delivery whose signature is not Stripe’s with a 400, before reading it', async () => {
    const delivery = stripe.event('checkout.session.expired', { id: 'cs_x', client_reference_id: 'ord_x' })
    const forged = { payload: delivery.payload.replace('ord_x', 'ord_y'), signature: delivery.signature }
    await expect(parse(gateway, forged)).rejects.toMatchObject({ status: 400, message: 'Invalid signature' })
    await expect(gateway.parseWebhook(Buffer.from(delivery.payload), {})).rejects.toMatchObject({ status: 400 })
  })

  it('reads a subscription change: its plan from the Price, a set end as a cancellation, events it ignores', async () => {
    const end = Math.floor(Date.now() / 1000) + 30 * 86400
    const subscription = {
      id: 'sub_change',
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: end,
      metadata: { planId: 'plus', billingCycle: 'monthly' },
      items: {
        data: [{ current_period_end: end, price: { recurring: { interval: 'year' }, metadata: { planId: 'pro' } } }],
      },
    }
    const changed = await parse(gateway, stripe.event('customer.subscription.updated', subscription))
    expect(changed.outcome).toEqual({
      kind: 'subscription-changed',
      providerSubscriptionId: 'sub_change',
      cancelAtPeriodEnd: false,
      cancelAt: new Date(end * 1000),
      status: 'active',
      planId: 'pro',
      billingCycle: 'yearly',
      periodEnd: new Date(end * 1000),
    })
    // A plan change whose prorated charge failed is no failed renewal (ADR 025).
    const declined = stripe.event('invoice.payment_failed', {
      id: 'in_x',
      billing_reason: 'subscription_update',
      parent: { subscription_details: { subscription: 'sub_change' } },
    })
    expect((await parse(gateway, declined)).outcome).toBeUndefined()
    expect((await parse(gateway, stripe.event('customer.created', { id: 'cus_x' }))).outcome).toBeUndefined()
  })

  it('maps a Stripe refusal to a 409 and an outage to a 503, nothing changed', async () => {
    const subscriptions = gateway.subscriptions
    if (!subscriptions) throw new Error('Stripe manages subscriptions')
    const refused = await subscriptions.setRenewal('sub_unknown', false, 'key-1').catch((error) => error)
    expect(subscriptions.failure(refused)).toMatchObject({ status: 409, details: { reason: 'provider-refused' } })
    stripe.failNext(4)
    const down = await subscriptions.setRenewal('sub_unknown', false, 'key-2').catch((error) => error)
    expect(subscriptions.failure(down)).toMatchObject({ status: 503 })
  })
})
