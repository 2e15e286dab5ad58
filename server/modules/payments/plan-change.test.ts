import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { orders, subscriptions } from '#db/schema/payments.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
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
