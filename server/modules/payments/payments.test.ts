import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { orders, subscriptions } from '#db/schema/payments.ts'
import { type BtcpayDouble, startBtcpay } from '#tests/doubles/btcpay.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
import { type StripeDelivery, type StripeTestApp, startStripeTestApp } from '#tests/helpers/stripe-app.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

type Session = Awaited<ReturnType<TestApp['login']>>
const PLUS = { diamonds: 1000, monthly: 999, yearly: 9588 }
const FREE_DIAMONDS = 30

const points = async (t: TestApp, session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number
const statusOf = async (t: TestApp, orderId: string) =>
  (await t.app.inject({ method: 'POST', url: '/api/payment/status', payload: { orderId } })).json().data.status
const subscriptionOf = async (t: TestApp, userId: string) =>
  (await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId)))[0]

describe('payments in the sandbox (no provider keys, outside production)', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  const start = (session: Session, url: string, payload: object) =>
    t.injectWithLogin({ method: 'POST', url, payload }, session)

  it('buys a yearly plan: order pending, paid through the sandbox once, diamonds and plan granted', async () => {
    const session = await t.login()
    const res = await start(session, '/api/subscription', {
      paymentType: 'card',
      planId: 'plus',
      billingCycle: 'yearly',
      locale: 'fr',
    })
    expect(res.statusCode).toBe(200)
    const { orderId, paymentUrl } = res.json().data
    expect(paymentUrl).toBe(`http://localhost:3000/fr/subscribe/sandbox?orderId=${orderId}`)
    expect(await statusOf(t, orderId)).toBe('pending')

    for (let i = 0; i < 3; i++) {
      const paid = await start(session, '/api/payment/sandbox', { orderId, outcome: 'paid' })
      expect(paid.json().data.status).toBe('paid')
    }
    expect(await points(t, session)).toBe(PLUS.diamonds)
    const [order] = await t.database.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order).toMatchObject({ amount: PLUS.yearly, currency: 'USD', provider: 'sandbox', billingCycle: 'yearly' })
    const current = await t.injectWithLogin({ method: 'GET', url: '/api/subscription/current' }, session)
    const sub = current.json().data.subscription
    expect(sub).toMatchObject({ planId: 'plus', billingCycle: 'yearly', status: 'active' })
    const days = (Date.parse(sub.currentPeriodEnd) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(364)
    expect(days).toBeLessThan(367)
  })

  it('a failed or cancelled sandbox order credits nothing and a paid one cannot be failed later', async () => {
    const session = await t.login()
    const a = (await start(session, '/api/payment', { planId: 'pro', billingCycle: 'monthly' })).json().data.orderId
    const b = (await start(session, '/api/payment', { planId: 'pro' })).json().data.orderId
    await start(session, '/api/payment/sandbox', { orderId: a, outcome: 'failed' })
    await start(session, '/api/payment/sandbox', { orderId: b, outcome: 'canceled' })
    expect(await statusOf(t, a)).toBe('failed')
    expect(await statusOf(t, b)).toBe('canceled')
    expect(await points(t, session)).toBe(0)
    const c = (await start(session, '/api/payment', { planId: 'pro' })).json().data.orderId
    await start(session, '/api/payment/sandbox', { orderId: c, outcome: 'paid' })
    await start(session, '/api/payment/sandbox', { orderId: c, outcome: 'failed' })
    expect(await statusOf(t, c)).toBe('paid')
    expect(await points(t, session)).toBe(3000)
  })

  it('another user can neither settle an order nor learn more than its status', async () => {
    const owner = await t.login()
    const other = await t.login()
    const orderId = (await start(owner, '/api/subscription', { planId: 'plus' })).json().data.orderId
    const res = await start(other, '/api/payment/sandbox', { orderId, outcome: 'paid' })
    expect(res.statusCode).toBe(404)
    const status = await t.app.inject({ method: 'POST', url: '/api/payment/status', payload: { orderId } })
    expect(status.json().data).toEqual({ orderId, status: 'pending' })
    expect(await points(t, other)).toBe(0)
  })

  it('refuses bad input with the error envelope and records nothing', async () => {
    const session = await t.login()
    const before = await t.database.db.select().from(orders)
    for (const payload of [{ planId: 'free' }, { planId: 'gold' }, { planId: 'plus', billingCycle: 'weekly' }, {}]) {
      const res = await start(session, '/api/subscription', payload)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ success: false })
    }
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/subscription', payload: { planId: 'plus' } })).statusCode,
    ).toBe(401)
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/payment/status',
      payload: { orderId: 'ord_AAAAAAAAAAAAAAAAAAAAAA' },
    })
    expect(unknown.statusCode).toBe(404)
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/payment/status',
      payload: { orderId: "1' or 1=1" },
    })
    expect(malformed.statusCode).toBe(400)
    expect(await t.database.db.select().from(orders)).toHaveLength(before.length)
  })

  it('the monthly award gives a paid plan’s diamonds instead of the free plan’s, once per month', async () => {
    const session = await t.login()
    const orderId = (await start(session, '/api/subscription', { planId: 'plus' })).json().data.orderId
    await start(session, '/api/payment/sandbox', { orderId, outcome: 'paid' })
    expect(await points(t, session)).toBe(PLUS.diamonds)
    // This month was credited by the payment: the award shares its reference.
    await t.app.services.diamonds.awardMonthly(new Date())
    expect(await points(t, session)).toBe(PLUS.diamonds)
    const nextMonth = new Date()
    nextMonth.setUTCDate(1)
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1)
    nextMonth.setUTCHours(12)
    await t.app.services.diamonds.awardMonthly(nextMonth)
    await t.app.services.diamonds.awardMonthly(nextMonth)
    expect(await points(t, session)).toBe(2 * PLUS.diamonds)
    // Once the period is over the free plan applies again.
    const later = new Date(Date.now() + 40 * 86_400_000 * 2)
    await t.app.services.diamonds.awardMonthly(later)
    expect(await points(t, session)).toBe(2 * PLUS.diamonds + FREE_DIAMONDS)
  })
})

describe('card subscriptions through Stripe', () => {
  let app: StripeTestApp
  let t: TestApp
  let stripe: StripeApiDouble
  beforeAll(async () => {
    app = await startStripeTestApp('payments')
    ;({ t, stripe } = app)
  })
  afterAll(() => app.close())

  const deliver = (delivery: StripeDelivery) => app.deliver(delivery)
  async function checkout(session: Session, billingCycle: 'monthly' | 'yearly') {
    const { orderId, paymentUrl, checkoutSession } = await app.checkout(session, billingCycle)
    expect(paymentUrl).toBe(checkoutSession.url)
    return { orderId, checkoutSession }
  }

  it('creates a Checkout Session in subscription mode with the plan’s price, cycle and order', async () => {
    const session = await t.login()
    const { orderId } = await checkout(session, 'yearly')
    const request = stripe.requests.at(-1)
    expect(request?.form.get('mode')).toBe('subscription')
    expect(request?.form.get('line_items[0][price_data][unit_amount]')).toBe(String(PLUS.yearly))
    expect(request?.form.get('line_items[0][price_data][currency]')).toBe('usd')
    expect(request?.form.get('line_items[0][price_data][recurring][interval]')).toBe('year')
    expect(request?.form.get('metadata[orderId]')).toBe(orderId)
    expect(request?.form.get('subscription_data[metadata][orderId]')).toBe(orderId)
    expect(request?.form.get('success_url')).toBe(`http://localhost:3000/subscribe/success?orderId=${orderId}`)
    expect(request?.idempotencyKey).toBe(`checkout:${orderId}`)
    expect(await statusOf(t, orderId)).toBe('pending')
  })

  it('credits a paid checkout exactly once when every event is delivered 10 times, in either order', async () => {
    const session = await t.login()
    const { orderId, checkoutSession } = await checkout(session, 'monthly')
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(checkoutSession)
    // The invoice can come first; each delivery is replayed, interleaved.
    const answers = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => [deliver(invoicePaid), deliver(completed)][i % 2] as ReturnType<typeof deliver>,
      ),
    )
    for (let i = 0; i < 10; i++) answers.push(await deliver(invoicePaid), await deliver(completed))
    for (const answer of answers) expect(answer.statusCode).toBe(200)
    expect(await statusOf(t, orderId)).toBe('paid')
    expect(await points(t, session)).toBe(PLUS.diamonds)
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({
      planId: 'plus',
      providerSubscriptionId: subscriptionId,
      status: 'active',
    })
  })

  it('a payment that completes after its buyer deleted the account marks the order paid and credits nobody', async () => {
    const session = await t.login()
    const { orderId, checkoutSession } = await checkout(session, 'monthly')
    const deleted = await t.injectWithLogin(
      { method: 'POST', url: '/api/account/delete', payload: { email: session.user.email } },
      session,
    )
    expect(deleted.statusCode).toBe(200)
    const { completed, invoicePaid } = stripe.paidCheckout(checkoutSession)
    for (const delivery of [completed, invoicePaid, completed, invoicePaid])
      expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await statusOf(t, orderId)).toBe('paid')
    const [order] = await t.database.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order?.userId).toBeNull()
    const credits = await t.database.db
      .select()
      .from(diamondLedger)
      .where(eq(diamondLedger.reference, `monthly:${session.user.id}:plus:${new Date().toISOString().slice(0, 7)}`))
    expect(credits).toEqual([])
  })

  it('renewals extend the plan and credit the new month once; failure, cancellation and late events follow', async () => {
    const session = await t.login()
    const { orderId, checkoutSession } = await checkout(session, 'monthly')
    const { subscriptionId, completed } = stripe.paidCheckout(checkoutSession)
    const now = Math.floor(Date.now() / 1000)
    await deliver(completed)
    const nextMonth = now + 31 * 86400
    const renewal = stripe.event(
      'invoice.paid',
      {
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        parent: { subscription_details: { subscription: subscriptionId, metadata: { orderId } } },
        lines: { data: [{ period: { start: nextMonth, end: nextMonth + 31 * 86400 } }] },
      },
      nextMonth,
    )
    for (let i = 0; i < 10; i++) expect((await deliver(renewal)).statusCode).toBe(200)
    expect(await points(t, session)).toBe(2 * PLUS.diamonds)
    let sub = await subscriptionOf(t, session.user.id)
    expect(sub?.currentPeriodEnd.getTime()).toBe((nextMonth + 31 * 86400) * 1000)

    const failed = stripe.event(
      'invoice.payment_failed',
      { object: 'invoice', billing_reason: 'subscription_cycle', subscription: subscriptionId },
      nextMonth + 10,
    )
    await deliver(failed)
    expect((await subscriptionOf(t, session.user.id))?.status).toBe('past_due')

    // An update older than what was applied changes nothing.
    await deliver(
      stripe.event(
        'customer.subscription.updated',
        { id: subscriptionId, object: 'subscription', status: 'active', cancel_at_period_end: false },
        now + 5,
      ),
    )
    expect((await subscriptionOf(t, session.user.id))?.status).toBe('past_due')

    const endedAt = nextMonth + 20
    for (let i = 0; i < 10; i++) {
      await deliver(
        stripe.event(
          'customer.subscription.deleted',
          { id: subscriptionId, object: 'subscription', status: 'canceled', ended_at: endedAt },
          endedAt,
        ),
      )
    }
    sub = await subscriptionOf(t, session.user.id)
    expect(sub).toMatchObject({ status: 'canceled' })
    expect(sub?.currentPeriodEnd.getTime()).toBe(endedAt * 1000)
    expect(await points(t, session)).toBe(2 * PLUS.diamonds)
  })

  it('an expired checkout closes the order; a renewal for an unknown subscription asks for a retry', async () => {
    const session = await t.login()
    const { orderId, checkoutSession } = await checkout(session, 'monthly')
    await deliver(stripe.event('checkout.session.expired', { ...checkoutSession, status: 'expired' }))
    expect(await statusOf(t, orderId)).toBe('expired')
    const early = stripe.event('invoice.paid', {
      object: 'invoice',
      billing_reason: 'subscription_cycle',
      subscription: 'sub_not_yet_known',
      lines: { data: [{ period: { end: Math.floor(Date.now() / 1000) + 86400 } }] },
    })
    expect((await deliver(early)).statusCode).toBe(409)
    expect(await points(t, session)).toBe(0)
  })

  it('rejects a bad signature, a tampered body and a wrong amount without crediting anything', async () => {
    const session = await t.login()
    const { orderId, checkoutSession } = await checkout(session, 'monthly')
    const good = stripe.event('checkout.session.completed', {
      ...checkoutSession,
      payment_status: 'paid',
      subscription: 'sub_x1',
    })
    const tampered = { payload: good.payload.replace(`"${orderId}"`, `"${orderId}"  `), signature: good.signature }
    expect((await deliver(tampered)).statusCode).toBe(400)
    expect((await deliver({ payload: good.payload, signature: 't=1,v1=00' })).statusCode).toBe(400)
    expect(await statusOf(t, orderId)).toBe('pending')
    const cheap = stripe.event('checkout.session.completed', {
      ...checkoutSession,
      payment_status: 'paid',
      amount_total: 1,
      subscription: 'sub_x2',
    })
    expect((await deliver(cheap)).statusCode).toBe(200)
    expect(await statusOf(t, orderId)).toBe('failed')
    expect(await points(t, session)).toBe(0)
  })

  it('a Stripe outage while starting leaves a pending order and a clear 5xx', async () => {
    const session = await t.login()
    stripe.failNext(2)
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/subscription', payload: { planId: 'plus' } },
      session,
    )
    expect(res.statusCode).toBeGreaterThanOrEqual(500)
    expect(res.json()).toMatchObject({ success: false })
  })
})

describe('crypto payments through BTCPay Server', () => {
  let t: TestApp
  let btcpay: BtcpayDouble
  const keys = { apiKey: 'btcpay-key', storeId: 'store123', webhookSecret: 'btcpay-webhook-secret' }
  beforeAll(async () => {
    btcpay = await startBtcpay(keys)
    t = await buildTestApp({
      env: {
        BTCPAY_URL: btcpay.url,
        BTCPAY_API_KEY: keys.apiKey,
        BTCPAY_STORE_ID: keys.storeId,
        BTCPAY_WEBHOOK_SECRET: keys.webhookSecret,
        PAYMENTS_SANDBOX: 'false',
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await btcpay.close()
  })

  const deliver = (delivery: { payload: string; signature: string }) =>
    t.app.inject({
      method: 'POST',
      url: '/api/webhooks/btcpay',
      headers: { 'content-type': 'application/json', 'btcpay-sig': delivery.signature },
      payload: delivery.payload,
    })
  async function invoiceFor(session: Session, billingCycle: 'monthly' | 'yearly' = 'monthly') {
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/payment', payload: { paymentType: 'crypto', planId: 'plus', billingCycle } },
      session,
    )
    expect(res.statusCode).toBe(200)
    const { orderId, paymentUrl } = res.json().data
    const invoice = [...btcpay.invoices.values()].find((i) => i.metadata.orderId === orderId)
    expect(invoice?.checkoutLink).toBe(paymentUrl)
    return { orderId, invoiceId: invoice?.id ?? '' }
  }

  it('creates an invoice for the period’s price and credits a settled one once over 10 deliveries', async () => {
    const session = await t.login()
    const { orderId, invoiceId } = await invoiceFor(session)
    expect(btcpay.invoices.get(invoiceId)).toMatchObject({ amount: '9.99', currency: 'USD' })
    // A webhook claiming settlement is checked against the invoice itself.
    expect((await deliver(btcpay.webhook('InvoiceSettled', invoiceId))).statusCode).toBe(200)
    expect(await statusOf(t, orderId)).toBe('pending')
    btcpay.setStatus(invoiceId, 'Settled')
    const delivery = btcpay.webhook('InvoiceSettled', invoiceId)
    for (let i = 0; i < 10; i++) expect((await deliver(delivery)).statusCode).toBe(200)
    await deliver(btcpay.webhook('InvoiceSettled', invoiceId))
    expect(await statusOf(t, orderId)).toBe('paid')
    expect(await points(t, session)).toBe(PLUS.diamonds)
  })

  it('a second crypto payment for the plan held extends it by another period', async () => {
    const session = await t.login()
    for (let i = 0; i < 2; i++) {
      const { invoiceId } = await invoiceFor(session)
      btcpay.setStatus(invoiceId, 'Settled')
      await deliver(btcpay.webhook('InvoiceSettled', invoiceId))
    }
    const sub = await subscriptionOf(t, session.user.id)
    const days = ((sub?.currentPeriodEnd.getTime() ?? 0) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(58)
    expect(days).toBeLessThan(63)
    expect(await points(t, session)).toBe(PLUS.diamonds)
  })

  it('expired and invalid invoices close their orders; bad signatures change nothing', async () => {
    const session = await t.login()
    const a = await invoiceFor(session)
    const b = await invoiceFor(session)
    btcpay.setStatus(a.invoiceId, 'Expired')
    btcpay.setStatus(b.invoiceId, 'Settled')
    await deliver(btcpay.webhook('InvoiceExpired', a.invoiceId))
    expect(await statusOf(t, a.orderId)).toBe('expired')
    const forged = btcpay.webhook('InvoiceSettled', b.invoiceId, { secret: 'not-the-secret' })
    expect((await deliver(forged)).statusCode).toBe(400)
    expect((await deliver({ ...forged, signature: '' })).statusCode).toBe(400)
    expect(await statusOf(t, b.orderId)).toBe('pending')
    expect(await points(t, session)).toBe(0)
  })
})
