import { eq } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { totpCode } from '#server/modules/staff/totp.ts'
import { type BtcpayDouble, startBtcpay } from '#tests/doubles/btcpay.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
import { asStaff, type StaffMember, staffMember } from '#tests/helpers/staff.ts'
import { PLUS_DIAMONDS, type StripeTestApp, startStripeTestApp } from '#tests/helpers/stripe-app.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createPaymentsRepo } from './payments.repo.ts'
import { refundReference } from './refunds.ts'

// The money console's routes (ADR 056, "Routes and pages") through the API, the Stripe double and
// its signed webhooks, on PGlite (or PostgreSQL with TEST_DATABASE_URL).

const PLUS_PRICE = 999

afterEach(() => vi.useRealTimers())

describe('the money console routes', () => {
  let app: StripeTestApp
  let t: TestApp
  let stripe: StripeApiDouble
  let admin: StaffMember
  beforeAll(async () => {
    app = await startStripeTestApp('money-routes')
    ;({ t, stripe } = app)
    admin = await staffMember(t, 'admin')
  })
  afterAll(() => app.close())

  const get = (url: string) => asStaff(t, admin, { method: 'GET', url })
  const post = (url: string, payload: object) => asStaff(t, admin, { method: 'POST', url, payload })
  const balance = (userId: string) => t.app.services.diamonds.balanceOf(userId)

  it('refunds through the route: preview first, the ledger moved once however often the webhooks arrive, audited', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)

    const detail = await get(`/api/admin/money/orders/${orderId}`)
    expect(detail.statusCode).toBe(200)
    expect(detail.headers['cache-control']).toBe('private, no-store')
    expect(detail.json().data).toMatchObject({
      order: { id: orderId, provider: 'stripe', status: 'paid', amount: PLUS_PRICE, sandbox: false, refunds: [] },
      preview: { refundable: PLUS_PRICE, diamondsDue: PLUS_DIAMONDS, endsPlan: true },
    })
    const preview = await get(`/api/admin/money/orders/${orderId}/refund-preview?amount=500`)
    expect(preview.json().data).toMatchObject({ amount: 500, diamondsDue: 500, diamondsTakenNow: 500, endsPlan: false })
    expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS)

    const res = await post(`/api/admin/money/orders/${orderId}/refund`, { amount: 500, note: 'asked by mail' })
    expect(res.statusCode).toBe(200)
    const { refund, planEnded } = res.json().data
    expect(refund).toMatchObject({ amount: 500, status: 'succeeded', diamondsTaken: 500, actorId: admin.id })
    expect(planEnded).toBe(false)
    const events = app.refundEvents()
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'charge.refunded'])
    await Promise.all([...events, ...events, ...events].map((d) => app.deliver(d)))
    await app.deliverAll([stripe.refundEvent('refund.updated', String(refund.providerRefundId))])

    expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS - 500)
    const ledger = await t.database.db
      .select()
      .from(diamondLedger)
      .where(eq(diamondLedger.reference, refundReference(refund.id)))
    expect(ledger).toMatchObject([{ amount: -500, reason: 'order-refund' }])
    expect(stripe.refunds.filter((r) => (r.metadata as Record<string, string>).orderId === orderId)).toHaveLength(1)

    const after = (await get(`/api/admin/money/orders/${orderId}`)).json().data
    expect(after.order).toMatchObject({ refundedAmount: 500, refunds: [{ id: refund.id, status: 'succeeded' }] })
    expect(after.preview).toMatchObject({ refunded: 500, refundable: PLUS_PRICE - 500 })
    const audit = await t.app.services.auditLog.page({ targetId: orderId }, 1, 10)
    expect(audit.items.map((r) => [r.action, r.actorId, r.note])).toEqual([
      ['order.refund', admin.id, 'asked by mail'],
      ['order.refund.requested', admin.id, 'asked by mail'],
    ])
  })

  it('answers 409 REFUND_NOT_ALLOWED over what remains and 400 for a bad body, nothing changed', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const calls = stripe.requests.filter((r) => r.path === '/v1/refunds').length
    const over = await post(`/api/admin/money/orders/${orderId}/refund`, { amount: PLUS_PRICE + 1, note: 'too much' })
    expect([over.statusCode, over.json().error]).toEqual([409, 'REFUND_NOT_ALLOWED'])
    expect(over.json().details).toMatchObject({ reason: 'exceeds-refundable', refundable: PLUS_PRICE })
    for (const payload of [{ amount: 100 }, { amount: -1, note: 'n' }, { amount: 1.5, note: 'n' }, { note: '  ' }]) {
      const bad = await post(`/api/admin/money/orders/${orderId}/refund`, payload)
      expect([JSON.stringify(payload), bad.statusCode]).toEqual([JSON.stringify(payload), 400])
    }
    const unknown = await post('/api/admin/money/orders/ord_unknown/refund', { note: 'n' })
    expect(unknown.statusCode).toBe(404)
    expect(stripe.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(calls)
    expect((await get(`/api/admin/money/orders/${orderId}`)).json().data.order.refunds).toEqual([])
    expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS)
  })

  it('a full refund ends the plan; a sandbox order is marked and not refundable', async () => {
    const session = await t.login()
    const { orderId, subscriptionId } = await app.buyPlan(session)
    const res = await post(`/api/admin/money/orders/${orderId}/refund`, { note: 'all of it' })
    expect(res.json().data).toMatchObject({ refund: { amount: PLUS_PRICE }, planEnded: true })
    await app.deliverAll(app.refundEvents())
    expect(await balance(session.user.id)).toBe(0)
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ status: 'canceled' })
    const detail = (await get(`/api/admin/money/orders/${orderId}`)).json().data
    expect(detail).toMatchObject({ order: { status: 'refunded' }, preview: null })

    const sandboxOrder = `ord_sandbox_${session.user.id.slice(0, 8)}`
    await createPaymentsRepo(t.database.db).insertOrder({
      id: sandboxOrder,
      userId: session.user.id,
      planId: 'plus',
      billingCycle: 'monthly',
      paymentType: 'card',
      provider: 'sandbox',
      status: 'paid',
      amount: 999,
      currency: 'USD',
    })
    const sandbox = (await get(`/api/admin/money/orders/${sandboxOrder}`)).json().data
    expect(sandbox).toMatchObject({ order: { sandbox: true }, preview: null })
    const refused = await post(`/api/admin/money/orders/${sandboxOrder}/refund`, { note: 'n' })
    expect([refused.statusCode, refused.json().details?.reason]).toEqual([409, 'not-refundable'])
  })

  it('lists orders with filters and paging, and subscriptions', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const mine = (await get(`/api/admin/money/orders?userId=${session.user.id}`)).json().data
    expect(mine).toMatchObject({ page: 1, pageSize: 50, hasMore: false, items: [{ id: orderId, sandbox: false }] })
    const real = (await get('/api/admin/money/orders?sandbox=false&provider=stripe&pageSize=1')).json().data
    expect(real.items).toHaveLength(1)
    expect(real.hasMore).toBe(true)
    expect(real.items.every((o: { sandbox: boolean }) => !o.sandbox)).toBe(true)
    const paid = (await get('/api/admin/money/orders?status=paid&pageSize=100')).json().data.items
    expect(paid.every((o: { status: string }) => o.status === 'paid')).toBe(true)
    for (const bad of ['status=lost', 'provider=paypal', 'sandbox=maybe', 'page=0', 'pageSize=101', 'userId=x']) {
      const res = await get(`/api/admin/money/orders?${bad}`)
      expect([bad, res.statusCode]).toEqual([bad, 400])
    }
    const subs = (await get(`/api/admin/money/subscriptions?userId=${session.user.id}`)).json().data
    expect(subs.items).toMatchObject([{ userId: session.user.id, planId: 'plus', status: 'active', sandbox: false }])
    expect((await get('/api/admin/money/subscriptions?status=gone')).statusCode).toBe(400)
  })

  it('cancels a plan at period end and at once through the route, audited; 404 without a plan', async () => {
    const a = await t.login()
    const planA = await app.buyPlan(a)
    const atEnd = await post(`/api/admin/money/subscriptions/${a.user.id}/cancel`, {
      when: 'period-end',
      note: 'asked',
    })
    expect(atEnd.statusCode).toBe(200)
    expect(atEnd.json().data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true })
    expect(stripe.subscriptions.get(planA.subscriptionId)).toMatchObject({ cancel_at_period_end: true })
    const b = await t.login()
    const planB = await app.buyPlan(b)
    const now = await post(`/api/admin/money/subscriptions/${b.user.id}/cancel`, { when: 'now', note: 'fraud' })
    expect(now.json().data).toMatchObject({ status: 'canceled' })
    expect(stripe.subscriptions.get(planB.subscriptionId)).toMatchObject({ status: 'canceled' })
    const audit = await t.app.services.auditLog.page({ targetId: b.user.id }, 1, 10)
    expect(audit.items.map((r) => [r.action, r.actorId, r.note])).toEqual([
      ['subscription.cancel', admin.id, 'fraud'],
      ['subscription.cancel.requested', admin.id, 'fraud'],
    ])
    const nobody = await t.login()
    const none = await post(`/api/admin/money/subscriptions/${nobody.user.id}/cancel`, { when: 'now', note: 'n' })
    expect(none.statusCode).toBe(404)
    const bad = await post(`/api/admin/money/subscriptions/${a.user.id}/cancel`, { when: 'later', note: 'n' })
    expect(bad.statusCode).toBe(400)
  })

  it('lists the webhooks received with their outcome and replays', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    await post(`/api/admin/money/orders/${orderId}/refund`, { amount: 100, note: 'n' })
    const [created] = app.refundEvents()
    if (!created) throw new Error('no refund.created')
    await app.deliverAll([created, created])
    const id = JSON.parse(created.payload).id as string
    const listed = (await get('/api/admin/money/webhooks?provider=stripe&pageSize=100')).json().data.items
    expect(listed.find((e: { eventId: string }) => e.eventId === id)).toMatchObject({
      type: 'refund.created',
      outcome: 'applied',
      duplicates: 1,
    })
    const replays = (await get('/api/admin/money/webhooks?duplicatesOnly=true&pageSize=100')).json().data.items
    expect(replays.every((e: { duplicates: number }) => e.duplicates > 0)).toBe(true)
    expect((await get('/api/admin/money/webhooks?outcome=maybe')).statusCode).toBe(400)
  })

  it('refuses a moderator on every money route (money is admin only), and asks an admin for a fresh confirmation', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const moderator = await staffMember(t, 'moderator')
    const urls: InjectOptions[] = [
      { method: 'GET', url: '/api/admin/money/orders' },
      { method: 'GET', url: `/api/admin/money/orders/${orderId}` },
      { method: 'POST', url: `/api/admin/money/orders/${orderId}/refund`, payload: { note: 'n' } },
      {
        method: 'POST',
        url: `/api/admin/money/subscriptions/${session.user.id}/cancel`,
        payload: { when: 'now', note: 'n' },
      },
    ]
    for (const request of urls) {
      const res = await asStaff(t, moderator, request)
      expect([request.url, res.statusCode, res.json().error]).toEqual([request.url, 403, 'FORBIDDEN'])
    }
    // Five minutes after the last code, a refund asks for a new one; reading still answers.
    vi.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1_000, toFake: ['Date'] })
    const late = { ...admin, token: await t.app.accessTokens.issue({ userId: admin.id }) }
    const refused = await asStaff(t, late, {
      method: 'POST',
      url: `/api/admin/money/orders/${orderId}/refund`,
      payload: { note: 'n' },
    })
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'CONFIRMATION_REQUIRED'])
    expect((await asStaff(t, late, { method: 'GET', url: '/api/admin/money/orders' })).statusCode).toBe(200)
    const confirm = await asStaff(t, late, {
      method: 'POST',
      url: '/api/admin/confirm',
      payload: { code: totpCode(admin.secret, Date.now()) },
    })
    expect(confirm.statusCode).toBe(200)
    const done = await asStaff(t, late, {
      method: 'POST',
      url: `/api/admin/money/orders/${orderId}/refund`,
      payload: { amount: 1, note: 'n' },
    })
    expect(done.statusCode).toBe(200)
    expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS - 1)
  })
})

describe('BTCPay invoices through the money console routes', () => {
  let btcpay: BtcpayDouble
  let t: TestApp
  let admin: StaffMember
  const keys = { apiKey: 'btcpay-routes', storeId: 'store-routes', webhookSecret: 'btcpay-routes-secret' }
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
    admin = await staffMember(t, 'admin')
  })
  afterAll(async () => {
    await t.close()
    await btcpay.close()
  })

  it('lists the invoices and refreshes one from BTCPay', async () => {
    const session = await t.login()
    const res = await t.injectWithLogin(
      {
        method: 'POST',
        url: '/api/payment',
        payload: { paymentType: 'crypto', planId: 'plus', billingCycle: 'monthly' },
      },
      session,
    )
    const { orderId } = res.json().data as { orderId: string }
    const listed = await asStaff(t, admin, { method: 'GET', url: `/api/admin/money/btcpay?userId=${session.user.id}` })
    expect(listed.json().data.items).toMatchObject([{ id: orderId, provider: 'btcpay', status: 'pending' }])
    const invoiceId = String(listed.json().data.items[0].providerRef)
    const refresh = () => asStaff(t, admin, { method: 'POST', url: `/api/admin/money/btcpay/${orderId}/refresh` })
    expect((await refresh()).json().data).toEqual({
      orderId,
      invoiceId,
      orderStatus: 'pending',
      invoice: { status: 'New', amount: 999, currency: 'USD' },
    })
    btcpay.pay(invoiceId)
    expect((await refresh()).json().data.invoice.status).toBe('Settled')
    const unknown = await asStaff(t, admin, { method: 'POST', url: '/api/admin/money/btcpay/ord_unknown/refresh' })
    expect(unknown.statusCode).toBe(404)
  })
})
