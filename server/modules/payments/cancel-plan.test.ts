import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentEvents, subscriptions } from '#db/schema/payments.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
import { type StripeDelivery, type StripeTestApp, startStripeTestApp } from '#tests/helpers/stripe-app.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Cancelling a plan (stop the renewal, keep it until the period ends) and undoing that:
// docs/decisions/016-cancel-plan.md.

type Session = Awaited<ReturnType<TestApp['login']>>
type Delivery = StripeDelivery
const PLUS_DIAMONDS = 1000

const subscriptionOf = async (t: TestApp, userId: string) =>
  (await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId)))[0]
const points = async (t: TestApp, session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number
const current = async (t: TestApp, session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/subscription/current' }, session)).json().data.subscription
const post = (t: TestApp, session: Session, url: string) => t.injectWithLogin({ method: 'POST', url }, session)
const deleteAccount = (t: TestApp, session: Session) =>
  t.injectWithLogin({ method: 'POST', url: '/api/account/delete', payload: { email: session.user.email } }, session)

describe('cancelling a card plan at Stripe', () => {
  let app: StripeTestApp
  let t: TestApp
  let stripe: StripeApiDouble
  beforeAll(async () => {
    app = await startStripeTestApp('cancel')
    ;({ t, stripe } = app)
  })
  afterAll(() => app.close())

  const deliver = (delivery: Delivery) => app.deliver(delivery)
  const eventId = (delivery: Delivery) => JSON.parse(delivery.payload).id as string
  const subscriptionRequests = (subscriptionId: string) =>
    stripe.requests.filter((r) => r.path === `/v1/subscriptions/${subscriptionId}`)

  /** Buys the monthly Plus plan by card and pays it at Stripe. */
  async function buyPlan(session: Session) {
    const { orderId, checkoutSession } = await app.checkout(session)
    const { subscriptionId, completed, invoicePaid } = stripe.paidCheckout(checkoutSession)
    for (const delivery of [completed, invoicePaid]) expect((await deliver(delivery)).statusCode).toBe(200)
    expect(await current(t, session)).toMatchObject({ planId: 'plus', renews: true, cancelAtPeriodEnd: false })
    return { orderId, subscriptionId }
  }

  it('cancels at Stripe with an idempotency key; the plan and its diamonds stay until the period end', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    const before = await subscriptionOf(t, session.user.id)

    const res = await post(t, session, '/api/subscription/cancel')
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json()).toMatchObject({
      success: true,
      data: {
        planId: 'plus',
        status: 'active',
        renews: false,
        cancelAtPeriodEnd: true,
        currentPeriodEnd: before?.currentPeriodEnd.toISOString(),
      },
    })
    const [request, ...more] = subscriptionRequests(subscriptionId)
    expect(more).toEqual([])
    expect(request?.form.get('cancel_at_period_end')).toBe('true')
    expect(request?.idempotencyKey).toMatch(new RegExp(`^subscription:${subscriptionId}:cancel_at_period_end=true:`))
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ status: 'active', cancel_at_period_end: true })

    expect(await current(t, session)).toMatchObject({ planId: 'plus', renews: false, cancelAtPeriodEnd: true })
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
      currentPeriodEnd: before?.currentPeriodEnd,
    })
    expect(await points(t, session)).toBe(PLUS_DIAMONDS)

    // Cancelling again (a second tab, a double click) changes nothing and calls Stripe no more.
    const again = await post(t, session, '/api/subscription/cancel')
    expect(again.statusCode).toBe(200)
    expect(again.json().data).toMatchObject({ renews: false, cancelAtPeriodEnd: true })
    expect(subscriptionRequests(subscriptionId)).toHaveLength(1)
  })

  it('resume undoes the cancellation at Stripe, with a new idempotency key each time', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)
    const resumed = await post(t, session, '/api/subscription/resume')
    expect(resumed.statusCode).toBe(200)
    expect(resumed.json().data).toMatchObject({ renews: true, cancelAtPeriodEnd: false })
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ cancel_at_period_end: false, cancel_at: null })
    // Cancelling again after the resume is a new request at Stripe, not a replay of the first one.
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)
    const sent = subscriptionRequests(subscriptionId)
    expect(sent.map((r) => r.form.get('cancel_at_period_end'))).toEqual(['true', 'false', 'true'])
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(3)
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ cancel_at_period_end: true })
    expect(await current(t, session)).toMatchObject({ renews: false, cancelAtPeriodEnd: true })
  })

  it('applies a subscription update once however often it is delivered, and ignores a stale one', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)

    // Stripe's echo of our own change: recorded once, the state stays.
    const echo = stripe.subscriptionEvent('customer.subscription.updated', subscriptionId)
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(echo)))
    for (let i = 0; i < 5; i++) answers.push(await deliver(echo))
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200))
    expect(answers.filter((a) => a.json().duplicate === false)).toHaveLength(1)
    const recorded = await t.database.db
      .select()
      .from(paymentEvents)
      .where(eq(paymentEvents.eventId, eventId(echo)))
    expect(recorded).toHaveLength(1)
    expect(await current(t, session)).toMatchObject({ renews: false, cancelAtPeriodEnd: true })

    // An update from before the cancellation, delivered late, does not bring the renewal back.
    const now = Math.floor(Date.now() / 1000)
    const stale = stripe.event(
      'customer.subscription.updated',
      { id: subscriptionId, object: 'subscription', status: 'active', cancel_at_period_end: false, cancel_at: null },
      now - 3600,
    )
    expect((await deliver(stale)).statusCode).toBe(200)
    expect(await current(t, session)).toMatchObject({ renews: false, cancelAtPeriodEnd: true })

    // The renewal restored at Stripe itself (its dashboard), later: applied, once.
    const restored = stripe.event(
      'customer.subscription.updated',
      { id: subscriptionId, object: 'subscription', status: 'active', cancel_at_period_end: false, cancel_at: null },
      now + 60,
    )
    const restoredAnswers = []
    for (let i = 0; i < 5; i++) restoredAnswers.push((await deliver(restored)).json().duplicate)
    expect(restoredAnswers).toEqual([false, true, true, true, true])
    expect(await current(t, session)).toMatchObject({ renews: true, cancelAtPeriodEnd: false })
    expect((await subscriptionOf(t, session.user.id))?.lastEventAt?.getTime()).toBe((now + 60) * 1000)

    // A cancellation made at Stripe (Stripe sets cancel_at to the period end) stops the renewal here too.
    const periodEnd = Math.floor(((await subscriptionOf(t, session.user.id))?.currentPeriodEnd.getTime() ?? 0) / 1000)
    const cancelledThere = stripe.event(
      'customer.subscription.updated',
      {
        id: subscriptionId,
        object: 'subscription',
        status: 'active',
        cancel_at_period_end: false,
        cancel_at: periodEnd,
      },
      now + 120,
    )
    for (let i = 0; i < 3; i++) expect((await deliver(cancelledThere)).statusCode).toBe(200)
    expect(await current(t, session)).toMatchObject({ renews: false, cancelAtPeriodEnd: true })
  })

  it('a renewal Stripe charges after the cancellation means the plan renews again', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)
    const later = Math.floor(Date.now() / 1000) + 3600
    const renewal = stripe.event(
      'invoice.paid',
      {
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        parent: { subscription_details: { subscription: subscriptionId } },
        lines: { data: [{ period: { start: later, end: later + 31 * 86400 } }] },
      },
      later,
    )
    expect((await deliver(renewal)).statusCode).toBe(200)
    expect(await current(t, session)).toMatchObject({
      renews: true,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: new Date((later + 31 * 86400) * 1000).toISOString(),
    })
  })

  it('the period end (customer.subscription.deleted) ends the plan; the diamonds received stay', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)
    const ended = stripe.endSubscription(subscriptionId, Math.floor(Date.now() / 1000) - 1)
    for (let i = 0; i < 3; i++) expect((await deliver(ended)).statusCode).toBe(200)
    expect(await current(t, session)).toBeNull()
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ status: 'canceled' })
    expect(await points(t, session)).toBe(PLUS_DIAMONDS)
    // A late update cannot revive an ended subscription, and there is nothing left to cancel or resume.
    await deliver(stripe.subscriptionEvent('customer.subscription.updated', subscriptionId, Date.now() / 1000 + 600))
    expect(await subscriptionOf(t, session.user.id)).toMatchObject({ status: 'canceled' })
    for (const url of ['/api/subscription/cancel', '/api/subscription/resume']) {
      expect((await post(t, session, url)).statusCode).toBe(404)
    }
  })

  it('cancels only the signed-in user’s own plan; without a paid plan it is a 404; without a login a 401', async () => {
    const owner = await t.login()
    const { subscriptionId } = await buyPlan(owner)
    const other = await t.login()
    for (const url of ['/api/subscription/cancel', '/api/subscription/resume']) {
      const res = await post(t, other, url)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ success: false, error: 'NOT_FOUND', code: 404 })
      expect((await t.app.inject({ method: 'POST', url })).statusCode).toBe(401)
    }
    // Nothing to name in the body: another user's plan cannot even be asked for.
    const smuggled = await t.injectWithLogin(
      { method: 'POST', url: '/api/subscription/cancel', payload: { userId: owner.user.id, subscriptionId } },
      other,
    )
    expect(smuggled.statusCode).toBe(400)
    expect(subscriptionRequests(subscriptionId)).toEqual([])
    expect(await current(t, owner)).toMatchObject({ renews: true, cancelAtPeriodEnd: false })
  })

  it('a Stripe outage is a clear 503 and changes nothing here; Stripe refusing is a 409', async () => {
    const session = await t.login()
    const { subscriptionId } = await buyPlan(session)
    const before = await subscriptionOf(t, session.user.id)
    stripe.failNext(2)
    const res = await post(t, session, '/api/subscription/cancel')
    stripe.failNext(0)
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ success: false, error: 'SERVICE_UNAVAILABLE' })
    expect(await subscriptionOf(t, session.user.id)).toEqual(before)
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ cancel_at_period_end: false })
    expect(await current(t, session)).toMatchObject({ renews: true })

    // Once Stripe answers again, the same click works.
    expect((await post(t, session, '/api/subscription/cancel')).json().data).toMatchObject({ renews: false })

    // A subscription Stripe no longer knows: refused there, nothing changed here.
    stripe.subscriptions.delete(subscriptionId)
    const refused = await post(t, session, '/api/subscription/resume')
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ error: 'CONFLICT', details: { reason: 'provider-refused' } })
    expect(await current(t, session)).toMatchObject({ renews: false, cancelAtPeriodEnd: true })
  })

  it('account deletion is refused while the plan renews and allowed once it is cancelled', async () => {
    const session = await t.login({ passwordHash: null })
    await buyPlan(session)
    const refused = await deleteAccount(t, session)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().details).toEqual({ reason: 'subscription-renews' })
    expect((await post(t, session, '/api/subscription/cancel')).statusCode).toBe(200)
    expect((await deleteAccount(t, session)).statusCode).toBe(200)
    expect(await subscriptionOf(t, session.user.id)).toBeUndefined()
  })
})

describe('cancelling in the sandbox, and plans that do not renew', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  async function buy(session: Session, url: '/api/subscription' | '/api/payment') {
    const orderId = (await t.injectWithLogin({ method: 'POST', url, payload: { planId: 'plus' } }, session)).json().data
      .orderId
    const paid = await t.injectWithLogin(
      { method: 'POST', url: '/api/payment/sandbox', payload: { orderId, outcome: 'paid' } },
      session,
    )
    expect(paid.json().data.status).toBe('paid')
  }

  it('a sandbox card plan renews like a Stripe one and cancels and resumes locally', async () => {
    const session = await t.login({ passwordHash: null })
    await buy(session, '/api/subscription')
    expect(await current(t, session)).toMatchObject({ planId: 'plus', renews: true, cancelAtPeriodEnd: false })
    expect((await deleteAccount(t, session)).statusCode).toBe(409)
    const cancelled = await post(t, session, '/api/subscription/cancel')
    expect(cancelled.statusCode).toBe(200)
    expect(cancelled.json().data).toMatchObject({ planId: 'plus', renews: false, cancelAtPeriodEnd: true })
    expect((await post(t, session, '/api/subscription/resume')).json().data).toMatchObject({ renews: true })
    expect((await post(t, session, '/api/subscription/cancel')).json().data).toMatchObject({ renews: false })
    expect(await points(t, session)).toBe(PLUS_DIAMONDS)
    expect((await deleteAccount(t, session)).statusCode).toBe(200)
  })

  it('a crypto plan never renews: cancel answers it unchanged, resume is a 409', async () => {
    const session = await t.login({ passwordHash: null })
    await buy(session, '/api/payment')
    const plan = await current(t, session)
    expect(plan).toMatchObject({ planId: 'plus', renews: false, cancelAtPeriodEnd: false })
    const cancelled = await post(t, session, '/api/subscription/cancel')
    expect(cancelled.statusCode).toBe(200)
    expect(cancelled.json().data).toEqual(plan)
    const resumed = await post(t, session, '/api/subscription/resume')
    expect(resumed.statusCode).toBe(409)
    expect(resumed.json()).toMatchObject({ error: 'CONFLICT', details: { reason: 'not-renewable' } })
    expect(await current(t, session)).toEqual(plan)
    expect((await deleteAccount(t, session)).statusCode).toBe(200)
  })
})
