// Over 400 lines: one scenario per plan-change rule of ADR 025, each driven through the whole API
// (Stripe and BTCPay doubles), and they share the setup helpers at the top; split by rule they would
// repeat them.

import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { orders, subscriptions } from '#db/schema/payments.ts'
import { type BtcpayDouble, startBtcpay } from '#tests/doubles/btcpay.ts'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import { type StripeDelivery, type StripeTestApp, startStripeTestApp } from '#tests/helpers/stripe-app.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Buying the plan held, upgrading, switching cycle, stepping down and paying by crypto while a plan
// runs: docs/decisions/025-plan-changes.md.

type Session = Awaited<ReturnType<TestApp['login']>>
const DIAMONDS = { plus: 1000, pro: 3000 }
const DAY_MS = 86_400_000

const subscriptionOf = async (t: TestApp, userId: string) =>
  (await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId)))[0]
const points = async (t: TestApp, session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number
const ordersOf = async (t: TestApp, userId: string) =>
  t.database.db.select().from(orders).where(eq(orders.userId, userId))
const daysLeft = (end: Date | undefined) => ((end?.getTime() ?? 0) - Date.now()) / DAY_MS
const orderStatus = async (t: TestApp, orderId: string) =>
  (await t.app.inject({ method: 'POST', url: '/api/payment/status', payload: { orderId } })).json().data.status

describe('changing a card plan at Stripe', () => {
  let app: StripeTestApp
  let t: TestApp
  let stripe: StripeApiDouble
  beforeAll(async () => {
    app = await startStripeTestApp('plans')
    ;({ t, stripe } = app)
  })
  afterAll(() => app.close())

  const deliver = (delivery: StripeDelivery) => app.deliver(delivery)
  const buy = (session: Session, planId: string, billingCycle: 'monthly' | 'yearly' = 'monthly') =>
    t.injectWithLogin({ method: 'POST', url: '/api/subscription', payload: { planId, billingCycle } }, session)
  const subscriptionCalls = (subscriptionId: string) =>
    stripe.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscriptionId}`)

  /** Buys Plus by card (monthly unless told) and pays it at Stripe. */
  async function holdPlus(session: Session, billingCycle: 'monthly' | 'yearly' = 'monthly') {
    const { checkoutSession } = await app.checkout(session, billingCycle)
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(checkoutSession, {
      periodDays: billingCycle === 'yearly' ? 365 : 30,
    })
    for (const delivery of [completed, invoicePaid]) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await points(t, session)).toBe(DIAMONDS.plus)
    return subscriptionId
  }

  it('refuses a second checkout for the plan and cycle held: no Checkout Session, no order', async () => {
    const session = await t.login()
    await holdPlus(session)
    const sessionsBefore = stripe.sessions.size
    const ordersBefore = (await ordersOf(t, session.user.id)).length
    const res = await buy(session, 'plus')
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ success: false, error: 'ALREADY_SUBSCRIBED' })
    expect(stripe.sessions.size).toBe(sessionsBefore)
    expect(await ordersOf(t, session.user.id)).toHaveLength(ordersBefore)
  })

  it('an upgrade changes the one Stripe subscription, prorated, and credits the extra diamonds once', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session)
    const sessionsBefore = stripe.sessions.size
    const subscriptionsBefore = stripe.subscriptions.size
    const before = await subscriptionOf(t, session.user.id)

    const res = await buy(session, 'pro')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.subscription).toMatchObject({ planId: 'pro', billingCycle: 'monthly', renews: true })
    // No second Checkout Session or subscription: an update of the existing one, with its item.
    expect(stripe.sessions.size).toBe(sessionsBefore)
    expect(stripe.subscriptions.size).toBe(subscriptionsBefore)
    const [update, ...more] = subscriptionCalls(subscriptionId)
    expect(more).toEqual([])
    const held = stripe.subscriptions.get(subscriptionId) as {
      items: { data: { id: string; price: { id: string; unit_amount: number; metadata: object } }[] }
    }
    const item = held.items.data[0]
    expect(update?.form.get('items[0][id]')).toBe(item?.id)
    expect(update?.form.get('items[0][price]')).toBe(item?.price.id)
    expect(update?.form.get('proration_behavior')).toBe('always_invoice')
    expect(update?.form.get('payment_behavior')).toBe('pending_if_incomplete')
    expect(update?.idempotencyKey).toMatch(new RegExp(`^subscription:${subscriptionId}:plan=pro:monthly:`))
    expect(item?.price).toMatchObject({ unit_amount: 1999, metadata: { planId: 'pro', billingCycle: 'monthly' } })
    // Stripe charged the difference for the time left, about one period's worth here.
    const invoice = stripe.invoices.at(-1)
    expect(invoice).toMatchObject({ billing_reason: 'subscription_update', status: 'paid' })
    expect(Number(invoice?.amount_paid)).toBeGreaterThan(990)
    expect(Number(invoice?.amount_paid)).toBeLessThanOrEqual(1000)

    const after = await subscriptionOf(t, session.user.id)
    expect(after).toMatchObject({ planId: 'pro', providerSubscriptionId: subscriptionId, status: 'active' })
    expect(Math.abs((after?.currentPeriodEnd.getTime() ?? 0) - (before?.currentPeriodEnd.getTime() ?? 0))).toBeLessThan(
      2 * DAY_MS,
    )
    expect(await points(t, session)).toBe(DIAMONDS.pro)

    // Stripe's events for the change, each delivered five times, in both orders: nothing more.
    const events = stripe.takeEvents()
    expect(events.map((e) => e.type).sort()).toEqual(['customer.subscription.updated', 'invoice.paid'])
    for (let i = 0; i < 5; i++) {
      for (const delivery of i % 2 ? events : [...events].reverse())
        expect((await deliver(delivery)).statusCode).toBe(200)
    }
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ planId: 'pro', status: 'active' })
    expect(await points(t, session)).toBe(DIAMONDS.pro)
    // The monthly award this month adds nothing either: the month is the new plan's.
    await t.app.services.diamonds.awardMonthly(new Date())
    expect(await points(t, session)).toBe(DIAMONDS.pro)

    // Clicking again asks for the plan now held.
    const again = await buy(session, 'pro')
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toBe('ALREADY_SUBSCRIBED')
    expect(subscriptionCalls(subscriptionId)).toHaveLength(1)
  })

  it('switching to yearly restarts the period at Stripe with the unused month credited; diamonds stay', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session)
    const res = await buy(session, 'plus', 'yearly')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.subscription).toMatchObject({ planId: 'plus', billingCycle: 'yearly' })
    const invoice = stripe.invoices.at(-1)
    // 95.88 a year less about 9.99 unused of the month just paid.
    expect(Number(invoice?.amount_paid)).toBeGreaterThan(9588 - 1000)
    expect(Number(invoice?.amount_paid)).toBeLessThan(9588 - 990)
    const sub = await subscriptionOf(t, session.user.id)
    expect(sub).toMatchObject({ billingCycle: 'yearly', providerSubscriptionId: subscriptionId })
    expect(daysLeft(sub?.currentPeriodEnd)).toBeGreaterThan(364)
    for (const delivery of stripe.takeEvents()) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await points(t, session)).toBe(DIAMONDS.plus)
  })

  it('steps down are refused without calling Stripe: a smaller plan, or yearly to monthly', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session, 'yearly')
    for (const [planId, billingCycle] of [
      ['plus', 'monthly'],
      ['pro', 'monthly'],
    ] as const) {
      const res = await buy(session, planId, billingCycle)
      expect(res.statusCode).toBe(409)
      expect(res.json()).toMatchObject({ error: 'PLAN_CHANGE_NOT_ALLOWED', details: { reason: 'downgrade' } })
    }
    expect(subscriptionCalls(subscriptionId)).toEqual([])
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ planId: 'plus', billingCycle: 'yearly' })
  })

  it('a declined prorated charge changes nothing: 402, the plan and its renewal stay as they were', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session)
    const before = await subscriptionOf(t, session.user.id)
    stripe.declineNext()
    const res = await buy(session, 'pro')
    expect(res.statusCode).toBe(402)
    expect(res.json()).toMatchObject({ success: false, error: 'PAYMENT_DECLINED' })
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ status: 'active' })
    expect(stripe.subscriptions.get(subscriptionId)?.pending_update).toBeTruthy()
    const events = stripe.takeEvents()
    expect(events.map((e) => e.type)).toEqual(['invoice.payment_failed'])
    for (const delivery of events) expect((await deliver(delivery)).statusCode).toBe(200)
    const after = await subscriptionOf(t, session.user.id)
    expect(after).toMatchObject({ planId: 'plus', status: 'active', currentPeriodEnd: before?.currentPeriodEnd })
    expect(await points(t, session)).toBe(DIAMONDS.plus)
  })

  it('an upgrade made at Stripe itself arrives by webhook: plan, period and diamonds follow, once', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session)
    const subscription = structuredClone(stripe.subscriptions.get(subscriptionId)) as Record<string, unknown> & {
      items: { data: Record<string, unknown>[] }
    }
    const periodEnd = Math.floor(Date.now() / 1000) + 29 * 86400
    subscription.items.data[0] = {
      ...subscription.items.data[0],
      price: {
        id: 'price_dashboard',
        object: 'price',
        unit_amount: 1999,
        currency: 'usd',
        recurring: { interval: 'month' },
        metadata: { planId: 'pro', billingCycle: 'monthly' },
      },
      current_period_end: periodEnd,
    }
    const updated = stripe.event('customer.subscription.updated', subscription, Math.floor(Date.now() / 1000) + 5)
    for (let i = 0; i < 5; i++) expect((await deliver(updated)).statusCode).toBe(200)
    const sub = await subscriptionOf(t, session.user.id)
    expect(sub).toMatchObject({ planId: 'pro', billingCycle: 'monthly' })
    expect(sub?.currentPeriodEnd.getTime()).toBe(periodEnd * 1000)
    expect(await points(t, session)).toBe(DIAMONDS.pro)
  })

  it('upgrading a plan set to end keeps it: the renewal comes back, then the price changes', async () => {
    const session = await t.login()
    const subscriptionId = await holdPlus(session)
    expect((await t.injectWithLogin({ method: 'POST', url: '/api/subscription/cancel' }, session)).statusCode).toBe(200)
    const res = await buy(session, 'pro')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.subscription).toMatchObject({ planId: 'pro', renews: true, cancelAtPeriodEnd: false })
    const sent = subscriptionCalls(subscriptionId)
    expect(sent.map((r) => r.form.get('cancel_at_period_end'))).toEqual(['true', 'false', null])
    expect(sent[2]?.form.get('items[0][price]')).toBeTruthy()
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ cancel_at_period_end: false })
  })

  it('a second checkout expires the first one at Stripe: the first tab can no longer pay, its order is closed', async () => {
    const session = await t.login()
    stripe.takeEvents()
    const first = await app.checkout(session)
    const second = await app.checkout(session, 'yearly')
    const expire = stripe.requests.filter((r) => r.path === `/v1/checkout/sessions/${first.checkoutSession.id}/expire`)
    expect(expire.map((r) => r.method)).toEqual(['POST'])
    expect(stripe.sessions.get(first.checkoutSession.id)?.status).toBe('expired')
    expect(() => stripe.paidCheckout(first.checkoutSession)).toThrow(/expired/)
    expect(await orderStatus(t, first.orderId)).toBe('canceled')
    // Stripe's own event for it changes nothing more.
    const events = stripe.takeEvents()
    expect(events.map((e) => e.type)).toEqual(['checkout.session.expired'])
    for (const delivery of events) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await orderStatus(t, first.orderId)).toBe('canceled')
    // The second one is paid as usual.
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(second.checkoutSession, { periodDays: 365 })
    for (const delivery of [completed, invoicePaid]) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({
      billingCycle: 'yearly',
      providerSubscriptionId: subscriptionId,
    })
  })

  it('a checkout paid in another tab before the new one starts stops it: 409, no new session or order', async () => {
    const session = await t.login()
    const first = await app.checkout(session)
    // Paid at Stripe; its webhooks have not arrived yet.
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(first.checkoutSession)
    const sessionsBefore = stripe.sessions.size
    const res = await buy(session, 'pro')
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ success: false, error: 'PAYMENT_IN_PROGRESS' })
    expect(stripe.sessions.size).toBe(sessionsBefore)
    expect(await ordersOf(t, session.user.id)).toHaveLength(1)
    expect(await orderStatus(t, first.orderId)).toBe('pending')
    for (const delivery of [completed, invoicePaid]) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ providerSubscriptionId: subscriptionId })
  })

  it('a second subscription paid anyway is cancelled at Stripe and refunded once; the plan held stays', async () => {
    const session = await t.login()
    const first = await app.checkout(session)
    // The race no start can close: two tabs started at the same moment, each before the other's
    // session existed, so neither was expired. Here the second start found the first order closed.
    await t.database.db.update(orders).set({ status: 'canceled' }).where(eq(orders.id, first.orderId))
    const second = await app.checkout(session)
    expect(stripe.requests.some((r) => r.path === `/v1/checkout/sessions/${first.checkoutSession.id}/expire`)).toBe(
      false,
    )
    const a = stripe.paidCheckout(first.checkoutSession)
    for (const delivery of [a.completed, a.invoicePaid]) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ providerSubscriptionId: a.subscriptionId })

    const b = stripe.paidCheckout(second.checkoutSession)
    for (let i = 0; i < 3; i++) {
      for (const delivery of i % 2 ? [b.completed, b.invoicePaid] : [b.invoicePaid, b.completed])
        expect((await deliver(delivery)).statusCode).toBe(200)
    }
    expect(await orderStatus(t, second.orderId)).toBe('refunded')
    const kept = await subscriptionOf(t, session.user.id)
    expect(kept).toMatchObject({ planId: 'plus', providerSubscriptionId: a.subscriptionId, status: 'active' })

    await t.app.services.jobs.drain()
    await vi.waitFor(() => expect(stripe.subscriptions.get(b.subscriptionId)?.status).toBe('canceled'))
    await vi.waitFor(() => expect(stripe.refunds).toHaveLength(1))
    const cancel = stripe.requests.filter(
      (r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${b.subscriptionId}`,
    )
    expect(cancel).toHaveLength(1)
    expect(cancel[0]?.form.get('invoice_now')).toBe('false')
    expect(cancel[0]?.form.get('prorate')).toBe('false')
    expect(cancel[0]?.idempotencyKey).toBe(`duplicate:${b.subscriptionId}:cancel`)
    const refund = stripe.refunds[0]
    expect(refund).toMatchObject({ amount: 999, reason: 'duplicate', metadata: { orderId: second.orderId } })
    const refundCall = stripe.requests.find((r) => r.path === '/v1/refunds')
    expect(refundCall?.idempotencyKey).toBe(`duplicate:${b.subscriptionId}:refund:${String(refund?.payment_intent)}`)
    // The first subscription was left alone.
    expect(stripe.subscriptions.get(a.subscriptionId)?.status).toBe('active')

    // Stripe's end of the second subscription, and the job run again (a retry), change nothing more.
    for (const delivery of stripe.takeEvents()) expect((await deliver(delivery)).statusCode).toBe(200)
    const payload = { orderId: second.orderId, userId: session.user.id, providerSubscriptionId: b.subscriptionId }
    await t.app.services.payments.refundDuplicate(payload)
    await t.app.services.payments.refundDuplicate(payload)
    expect(stripe.refunds).toHaveLength(1)
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({
      providerSubscriptionId: a.subscriptionId,
      status: 'active',
      currentPeriodEnd: kept?.currentPeriodEnd,
    })
    expect(await points(t, session)).toBe(DIAMONDS.plus)
  })
})

describe('plan changes in the sandbox, and crypto periods', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  const start = (session: Session, url: string, planId: string, billingCycle = 'monthly') =>
    t.injectWithLogin({ method: 'POST', url, payload: { planId, billingCycle } }, session)
  async function pay(session: Session, url: '/api/subscription' | '/api/payment', planId: string, cycle = 'monthly') {
    const res = await start(session, url, planId, cycle)
    expect(res.statusCode).toBe(200)
    const paid = await t.injectWithLogin(
      { method: 'POST', url: '/api/payment/sandbox', payload: { orderId: res.json().data.orderId, outcome: 'paid' } },
      session,
    )
    expect(paid.json().data.status).toBe('paid')
  }

  it('the sandbox refuses the card plan held and upgrades it in place, without a new order', async () => {
    const session = await t.login()
    await pay(session, '/api/subscription', 'plus')
    const first = await subscriptionOf(t, session.user.id)
    const same = await start(session, '/api/subscription', 'plus')
    expect(same.statusCode).toBe(409)
    expect(same.json().error).toBe('ALREADY_SUBSCRIBED')
    const up = await start(session, '/api/subscription', 'pro')
    expect(up.statusCode).toBe(200)
    expect(up.json().data.subscription).toMatchObject({ planId: 'pro', renews: true })
    expect(await ordersOf(t, session.user.id)).toHaveLength(1)
    const sub = await subscriptionOf(t, session.user.id)
    expect(sub).toMatchObject({ planId: 'pro', providerSubscriptionId: first?.providerSubscriptionId })
    expect(sub?.currentPeriodEnd).toEqual(first?.currentPeriodEnd)
    expect(await points(t, session)).toBe(DIAMONDS.pro)
    const down = await start(session, '/api/subscription', 'plus')
    expect(down.json()).toMatchObject({ error: 'PLAN_CHANGE_NOT_ALLOWED', details: { reason: 'downgrade' } })
  })

  it('crypto while a card plan renews is refused; once cancelled, it extends the plan from its end', async () => {
    const session = await t.login()
    await pay(session, '/api/subscription', 'plus')
    const refused = await start(session, '/api/payment', 'plus')
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ error: 'PLAN_CHANGE_NOT_ALLOWED', details: { reason: 'card-plan-renews' } })
    expect((await t.injectWithLogin({ method: 'POST', url: '/api/subscription/cancel' }, session)).statusCode).toBe(200)
    const before = await subscriptionOf(t, session.user.id)
    await pay(session, '/api/payment', 'plus')
    const after = await subscriptionOf(t, session.user.id)
    // Runs until a month after the card period's end, not a month from today.
    const end = new Date(before?.currentPeriodEnd ?? 0)
    end.setUTCMonth(end.getUTCMonth() + 1)
    expect(after?.currentPeriodEnd.getTime()).toBeGreaterThanOrEqual(end.getTime() - 3 * DAY_MS)
    expect(daysLeft(after?.currentPeriodEnd)).toBeGreaterThan(57)
    expect(after).toMatchObject({ planId: 'plus', providerSubscriptionId: null })
    expect(await points(t, session)).toBe(DIAMONDS.plus)
  })

  it('crypto for the plan held extends it; a higher plan starts now with the days left converted', async () => {
    const session = await t.login()
    await pay(session, '/api/payment', 'plus')
    await pay(session, '/api/payment', 'plus')
    const extended = await subscriptionOf(t, session.user.id)
    expect(daysLeft(extended?.currentPeriodEnd)).toBeGreaterThan(57)
    expect(daysLeft(extended?.currentPeriodEnd)).toBeLessThan(63)
    // About 60 days of Plus left are worth about 30 of Pro (9.99 vs 19.99 a month).
    await pay(session, '/api/payment', 'pro')
    const upgraded = await subscriptionOf(t, session.user.id)
    expect(upgraded).toMatchObject({ planId: 'pro' })
    expect(daysLeft(upgraded?.currentPeriodEnd)).toBeGreaterThan(55)
    expect(daysLeft(upgraded?.currentPeriodEnd)).toBeLessThan(63)
    expect(await points(t, session)).toBe(DIAMONDS.pro)
    // A smaller plan by crypto, or a card subscription while a crypto period runs: refused.
    const lower = await start(session, '/api/payment', 'plus')
    expect(lower.json()).toMatchObject({ error: 'PLAN_CHANGE_NOT_ALLOWED', details: { reason: 'downgrade' } })
    const card = await start(session, '/api/subscription', 'ultra')
    expect(card.json()).toMatchObject({ error: 'PLAN_CHANGE_NOT_ALLOWED', details: { reason: 'one-off-plan-runs' } })
    const held = await start(session, '/api/subscription', 'pro')
    expect(held.json().error).toBe('ALREADY_SUBSCRIBED')
  })
})

describe('a card checkout and a crypto invoice side by side', () => {
  let t: TestApp
  let stripe: StripeApiDouble
  let btcpay: BtcpayDouble
  const keys = { secretKey: 'sk_test_side_by_side', webhookSecret: 'whsec_test_side_by_side' }
  const store = { apiKey: 'btcpay-key', storeId: 'store-side', webhookSecret: 'btcpay-secret' }
  beforeAll(async () => {
    stripe = await startStripeApi(keys)
    btcpay = await startBtcpay(store)
    t = await buildTestApp({
      env: {
        STRIPE_SECRET_KEY: keys.secretKey,
        STRIPE_WEBHOOK_SECRET: keys.webhookSecret,
        STRIPE_API_URL: stripe.url,
        BTCPAY_URL: btcpay.url,
        BTCPAY_API_KEY: store.apiKey,
        BTCPAY_STORE_ID: store.storeId,
        BTCPAY_WEBHOOK_SECRET: store.webhookSecret,
        PAYMENTS_SANDBOX: 'false',
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await stripe.close()
    await btcpay.close()
  })

  const start = (session: Session, url: '/api/subscription' | '/api/payment', planId = 'plus') =>
    t.injectWithLogin({ method: 'POST', url, payload: { planId, billingCycle: 'monthly' } }, session)
  const deliverBtcpay = (delivery: { payload: string; signature: string }) =>
    t.app.inject({
      method: 'POST',
      url: '/api/webhooks/btcpay',
      headers: { 'content-type': 'application/json', 'btcpay-sig': delivery.signature },
      payload: delivery.payload,
    })
  const invoiceOf = (orderId: string) => [...btcpay.invoices.values()].find((i) => i.metadata.orderId === orderId)

  it('a card checkout closes the open crypto invoice; money that still reaches it buys the plan', async () => {
    const session = await t.login()
    const crypto = (await start(session, '/api/payment')).json().data.orderId as string
    const invoice = invoiceOf(crypto)
    const card = await start(session, '/api/subscription')
    expect(card.statusCode).toBe(200)
    expect(invoice).toMatchObject({ status: 'Invalid', additionalStatus: 'Marked' })
    expect(await orderStatus(t, crypto)).toBe('canceled')
    // BTCPay's own event for the invalid invoice closes nothing more.
    expect((await deliverBtcpay(btcpay.webhook('InvoiceInvalid', invoice?.id ?? ''))).statusCode).toBe(200)
    expect(await orderStatus(t, crypto)).toBe('canceled')

    // A payment sent from the old tab anyway: the invoice stays invalid, the money is credited.
    btcpay.pay(invoice?.id ?? '')
    expect(invoice?.status).toBe('Invalid')
    const paid = btcpay.webhook('InvoicePaymentSettled', invoice?.id ?? '')
    for (let i = 0; i < 3; i++) expect((await deliverBtcpay(paid)).statusCode).toBe(200)
    expect(await orderStatus(t, crypto)).toBe('paid')
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ planId: 'plus', provider: 'btcpay' })
    expect(await points(t, session)).toBe(DIAMONDS.plus)
  })

  it('a crypto invoice expires the open card checkout, and an invoice being paid stops a card checkout', async () => {
    const session = await t.login()
    const card = (await start(session, '/api/subscription')).json().data.orderId as string
    const checkoutSession = [...stripe.sessions.values()].find((s) => s.client_reference_id === card)
    const crypto = (await start(session, '/api/payment')).json().data.orderId as string
    expect(checkoutSession?.status).toBe('expired')
    expect(await orderStatus(t, card)).toBe('canceled')
    // Another crypto invoice may stay open beside it: paying both extends the plan twice.
    const again = (await start(session, '/api/payment')).json().data.orderId as string
    expect(invoiceOf(crypto)?.status).toBe('New')

    // Paid in the other tab and still confirming: no card checkout now, the invoices are untouched.
    btcpay.setStatus(invoiceOf(again)?.id ?? '', 'Processing')
    const sessionsBefore = stripe.sessions.size
    const refused = await start(session, '/api/subscription')
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ success: false, error: 'PAYMENT_IN_PROGRESS' })
    expect(stripe.sessions.size).toBe(sessionsBefore)
    expect(invoiceOf(again)?.status).toBe('Processing')
    expect(await orderStatus(t, again)).toBe('pending')
  })
})
