import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Audit, AuditEntry } from '#contracts/admin-audit.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { orders, subscriptions } from '#db/schema/payments.ts'
import { AppError } from '#server/lib/errors.ts'
import { createDiamondsRepo } from '#server/modules/diamonds/diamonds.repo.ts'
import { type BtcpayDouble, startBtcpay } from '#tests/doubles/btcpay.ts'
import type { StripeApiDouble } from '#tests/doubles/stripe-api.ts'
import {
  PLUS_DIAMONDS,
  type StripeDelivery,
  type StripeTestApp,
  startStripeTestApp,
} from '#tests/helpers/stripe-app.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import type { PaymentGateways } from './gateways.ts'
import { createPaymentsRepo } from './payments.repo.ts'
import { createRefundsRepo } from './refunds.repo.ts'
import { createRefunds, refundReference } from './refunds.ts'

// Refunds and the money console (ADR 056), through the Stripe double and its signed webhooks.

const PLUS_PRICE = 999

describe('refunds and the money console', () => {
  let app: StripeTestApp
  let t: TestApp
  let stripe: StripeApiDouble
  const audited: AuditEntry[] = []
  const audit: Audit = async (_tx, entry) => {
    audited.push(entry)
  }
  beforeAll(async () => {
    app = await startStripeTestApp('refunds')
    ;({ t, stripe } = app)
  })
  afterAll(() => app.close())

  const money = () => t.app.services.payments.console(audit)
  const balance = (userId: string) => t.app.services.diamonds.balanceOf(userId)
  const ledgerOf = async (refundId: string) =>
    t.database.db
      .select()
      .from(diamondLedger)
      .where(eq(diamondLedger.reference, refundReference(refundId)))

  it.each([
    { webhooks: 0, before: false },
    { webhooks: 1, before: false },
    { webhooks: 3, before: false },
    { webhooks: 1, before: true },
    { webhooks: 3, before: true },
  ])(
    'a refund through the Stripe double adjusts the ledger once however often its webhook arrives ($webhooks times, before the API answer: $before)',
    async ({ webhooks, before }) => {
      const session = await t.login()
      const { orderId } = await app.buyPlan(session)
      let refunds = money().refunds
      if (before) {
        // The webhooks arrive while the API's answer is still on its way.
        const gateways = t.app.services.gateways
        const stripeGateway = gateways.of('stripe')
        const real = stripeGateway?.refunds
        if (!stripeGateway || !real) throw new Error('no Stripe refunds')
        const early: PaymentGateways = {
          ...gateways,
          of: (provider) =>
            provider === 'stripe'
              ? {
                  ...stripeGateway,
                  refunds: {
                    ...real,
                    async refund(request) {
                      const answer = await real.refund(request)
                      const events = app.refundEvents()
                      for (let i = 0; i < webhooks; i++) await app.deliverAll(events)
                      return answer
                    },
                  },
                }
              : gateways.of(provider),
        }
        const db = t.database.db
        refunds = createRefunds({
          repo: createPaymentsRepo(db),
          refunds: createRefundsRepo(db),
          diamonds: t.app.services.diamonds,
          gateways: early,
          audit,
          log: () => {},
        })
      }
      const result = await refunds.refund({ orderId, amount: 500, actorId: 'admin-1', note: 'asked by mail' })
      if (!before) {
        const events = app.refundEvents()
        expect(events.map((e) => e.type)).toEqual(['refund.created', 'charge.refunded'])
        const deliveries = Array.from({ length: webhooks }, () => events).flat()
        await Promise.all(deliveries.map((d) => app.deliver(d)))
      }
      // 500 of 999 paid takes back floor(1000 × 500 / 999) = 500 diamonds, once.
      expect(result.preview).toMatchObject({ paid: PLUS_PRICE, amount: 500, diamondsDue: 500, endsPlan: false })
      expect(result.refund).toMatchObject({ status: 'succeeded', diamondsTaken: 500 })
      expect(await ledgerOf(result.refund.id)).toMatchObject([{ amount: -500, reason: 'order-refund' }])
      expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS - 500)
      expect(stripe.refunds.filter((r) => (r.metadata as Record<string, string>).orderId === orderId)).toHaveLength(1)
      expect(audited.filter((a) => a.targetId === orderId).map((a) => a.action)).toEqual([
        'order.refund.requested',
        'order.refund',
      ])
      // A late refund.updated (the same refund, succeeded) changes nothing more.
      await app.deliverAll([stripe.refundEvent('refund.updated', String(result.refund.providerRefundId))])
      expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS - 500)
    },
  )

  it('a partial then a full refund: diamonds in proportion, all of them in the end, the order refunded and the plan ended', async () => {
    const session = await t.login()
    const { orderId, subscriptionId } = await app.buyPlan(session)
    const { refunds } = money()
    const preview = await refunds.preview(orderId, 333)
    expect(preview).toMatchObject({
      refundable: PLUS_PRICE,
      diamondsCredited: 1000,
      diamondsDue: 333,
      diamondsUncollected: 0,
    })
    const first = await refunds.refund({ orderId, amount: 333, actorId: 'admin-1', note: 'partial' })
    expect(first.refund).toMatchObject({ status: 'succeeded', diamondsTaken: 333 })
    expect(first.planEnded).toBe(false)
    const rest = await refunds.preview(orderId)
    expect(rest).toMatchObject({ refunded: 333, refundable: 666, amount: 666, diamondsDue: 667, endsPlan: true })
    const second = await refunds.refund({ orderId, actorId: 'admin-1', note: 'the rest' })
    expect(second.refund).toMatchObject({ amount: 666, status: 'succeeded', diamondsTaken: 667 })
    await app.deliverAll(app.refundEvents())
    expect(await balance(session.user.id)).toBe(0)
    const [order] = await t.database.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order?.status).toBe('refunded')
    expect(second.planEnded).toBe(true)
    expect(stripe.subscriptions.get(subscriptionId)).toMatchObject({ status: 'canceled' })
    const [sub] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.userId, session.user.id))
    expect(sub?.status).toBe('canceled')
    expect(sub && sub.currentPeriodEnd <= new Date()).toBe(true)
    expect(audited.some((a) => a.action === 'subscription.cancel' && a.targetId === session.user.id)).toBe(true)
    // Nothing is left to refund.
    await expect(refunds.refund({ orderId, amount: 1, actorId: 'admin-1', note: 'again' })).rejects.toMatchObject({
      code: 'REFUND_NOT_ALLOWED',
    })
  })

  it('refuses a refund larger than what remains, and changes nothing', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const { refunds } = money()
    await refunds.refund({ orderId, amount: 900, actorId: 'admin-1', note: 'most' })
    const calls = stripe.requests.filter((r) => r.path === '/v1/refunds').length
    const refused = await refunds.refund({ orderId, amount: 100, actorId: 'admin-1', note: 'too much' }).catch((e) => e)
    expect(refused).toBeInstanceOf(AppError)
    expect(refused).toMatchObject({
      status: 409,
      code: 'REFUND_NOT_ALLOWED',
      details: { reason: 'exceeds-refundable', refundable: 99 },
    })
    expect(stripe.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(calls)
    expect(await refunds.ofOrder(orderId)).toHaveLength(1)
    await expect(refunds.refund({ orderId, amount: 0, actorId: 'a', note: 'n' })).rejects.toMatchObject({ status: 400 })
  })

  it('a refund Stripe did not answer stays pending (its amount reserved) and a retry with the same key applies it once', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const { refunds } = money()
    const before = stripe.requests.length
    stripe.failNext(5)
    const failed = await refunds.refund({ orderId, amount: 999, actorId: 'admin-1', note: 'outage' }).catch((e) => e)
    expect(failed).toMatchObject({ status: 503 })
    const calls = stripe.requests.slice(before)
    stripe.failNext(0)
    expect(calls.length).toBeGreaterThan(0)
    const [pending] = await refunds.ofOrder(orderId)
    expect(pending).toMatchObject({ status: 'pending', appliedAt: null })
    expect(audited.filter((a) => a.targetId === orderId).map((a) => [a.action, a.details?.outcome])).toEqual([
      ['order.refund.requested', undefined],
      ['order.refund.failed', 'unanswered'],
    ])
    // Its amount is reserved: nothing more can be refunded meanwhile.
    await expect(refunds.preview(orderId, 1)).rejects.toMatchObject({ code: 'REFUND_NOT_ALLOWED' })
    expect(await balance(session.user.id)).toBe(PLUS_DIAMONDS)
    if (!pending) throw new Error('no pending refund')
    const retried = await refunds.retry({ refundId: pending.id, actorId: 'admin-1', note: 'retry' })
    await app.deliverAll([...app.refundEvents(), ...app.refundEvents()])
    expect(retried).toMatchObject({ status: 'succeeded', diamondsTaken: PLUS_DIAMONDS })
    expect(await balance(session.user.id)).toBe(0)
    expect(await ledgerOf(pending.id)).toHaveLength(1)
    // Retrying a settled refund does nothing.
    expect(await refunds.retry({ refundId: pending.id, actorId: 'admin-1', note: 'again' })).toMatchObject({
      status: 'succeeded',
    })
    expect(stripe.refunds.filter((r) => (r.metadata as Record<string, string>).refundId === pending.id)).toHaveLength(1)
  })

  it('never takes a balance below zero: the deduction is capped and what was missing recorded', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    await createDiamondsRepo(t.database.db).apply({
      userId: session.user.id,
      amount: -900,
      reason: 'chat',
      reference: `test-spend:${session.user.id}`,
    })
    const { refunds } = money()
    expect(await refunds.preview(orderId)).toMatchObject({
      diamondsDue: 1000,
      diamondsTakenNow: 100,
      diamondsUncollected: 900,
    })
    const result = await refunds.refund({ orderId, actorId: 'admin-1', note: 'spent already' })
    await app.deliverAll(app.refundEvents())
    expect(result.refund).toMatchObject({ status: 'succeeded', diamondsDue: 1000, diamondsTaken: 100 })
    expect(await balance(session.user.id)).toBe(0)
  })

  it('lists orders newest first with the sandbox marked, subscriptions, and a user’s orders', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    const repo = createPaymentsRepo(t.database.db)
    const sandboxOrder = 'ord_sandboxsandboxsandbox1'
    await repo.insertOrder({
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
    const console = money()
    const mine = await console.ordersOf(session.user.id)
    expect(mine.items.map((o) => [o.id, o.sandbox])).toEqual([
      [sandboxOrder, true],
      [orderId, false],
    ])
    expect((await console.orders({ sandbox: true })).items.every((o) => o.sandbox)).toBe(true)
    expect((await console.orders({ sandbox: false, userId: session.user.id })).items.map((o) => o.id)).toEqual([
      orderId,
    ])
    const page = await console.orders({ provider: 'stripe' }, 1, 1)
    expect(page.items).toHaveLength(1)
    expect(page.hasMore).toBe(true)
    const subs = await console.subscriptions({ userId: session.user.id })
    expect(subs.items).toMatchObject([{ planId: 'plus', status: 'active', provider: 'stripe', sandbox: false }])
  })

  it('lists the webhooks received with their outcome: applied, ignored, replays counted, failed with why', async () => {
    const session = await t.login()
    const { orderId } = await app.buyPlan(session)
    await money().refunds.refund({ orderId, amount: 100, actorId: 'admin-1', note: 'n' })
    const [created, chargeRefunded] = app.refundEvents()
    if (!created || !chargeRefunded) throw new Error('no refund events')
    await app.deliverAll([created, created, created, chargeRefunded])
    const unknown = stripe.event('invoice.paid', {
      id: 'in_unknown',
      object: 'invoice',
      billing_reason: 'subscription_cycle',
      parent: { subscription_details: { subscription: 'sub_unknown', metadata: {} } },
      lines: { data: [{ period: { end: Math.floor(Date.now() / 1000) + 86400 } }] },
    })
    expect((await app.deliver(unknown)).statusCode).toBe(409)
    const idOf = (d: StripeDelivery) => JSON.parse(d.payload).id as string
    const listed = (await money().webhooks({ provider: 'stripe' }, 1, 100)).items
    const find = (d: StripeDelivery) => listed.find((e) => e.eventId === idOf(d))
    expect(find(created)).toMatchObject({ type: 'refund.created', outcome: 'applied', duplicates: 2 })
    expect(find(chargeRefunded)).toMatchObject({ type: 'charge.refunded', outcome: 'ignored', duplicates: 0 })
    expect(find(unknown)).toMatchObject({ outcome: 'failed', failure: 'Subscription not known (yet)' })
    expect((await money().webhooks({ outcome: 'failed' })).items.map((e) => e.eventId)).toContain(idOf(unknown))
  })

  it('cancels a plan at period end or at once through Stripe, audited', async () => {
    const a = await t.login()
    const planA = await app.buyPlan(a)
    const console = money()
    const atEnd = await console.cancelSubscription({
      userId: a.user.id,
      when: 'period-end',
      actorId: 'admin-1',
      note: 'asked',
    })
    expect(atEnd).toMatchObject({ status: 'active', cancelAtPeriodEnd: true })
    expect(stripe.subscriptions.get(planA.subscriptionId)).toMatchObject({ cancel_at_period_end: true })
    const b = await t.login()
    const planB = await app.buyPlan(b)
    const now = await console.cancelSubscription({ userId: b.user.id, when: 'now', actorId: 'admin-1', note: 'fraud' })
    expect(now).toMatchObject({ status: 'canceled' })
    expect(stripe.subscriptions.get(planB.subscriptionId)).toMatchObject({ status: 'canceled' })
    expect(audited.filter((x) => x.targetId === b.user.id).map((x) => [x.action, x.note, x.targetType])).toEqual([
      ['subscription.cancel.requested', 'fraud', 'subscription'],
      ['subscription.cancel', 'fraud', 'subscription'],
    ])
    expect(
      await t.database.db
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, b.user.id), eq(subscriptions.status, 'canceled'))),
    ).toHaveLength(1)
  })
})

describe('BTCPay invoices in the money console', () => {
  let btcpay: BtcpayDouble
  let t: TestApp
  const keys = { apiKey: 'btcpay-console', storeId: 'store-console', webhookSecret: 'btcpay-console-secret' }
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

  it('lists the invoices (orders of BTCPay) and refreshes one from BTCPay; a card refund is refused for them', async () => {
    const session = await t.login()
    const res = await t.injectWithLogin(
      {
        method: 'POST',
        url: '/api/payment',
        payload: { paymentType: 'crypto', planId: 'plus', billingCycle: 'monthly' },
      },
      session,
    )
    expect(res.statusCode).toBe(200)
    const { orderId } = res.json().data as { orderId: string }
    const money = t.app.services.payments.console(async () => {})
    const listed = await money.btcpayInvoices({ userId: session.user.id })
    expect(listed.items).toMatchObject([{ id: orderId, provider: 'btcpay', status: 'pending', sandbox: false }])
    const invoiceId = String(listed.items[0]?.providerRef)
    expect(await money.refreshInvoice(orderId)).toEqual({
      orderId,
      invoiceId,
      orderStatus: 'pending',
      invoice: { status: 'New', amount: 999, currency: 'USD' },
    })
    btcpay.pay(invoiceId)
    expect((await money.refreshInvoice(orderId)).invoice.status).toBe('Settled')
    await expect(money.refreshInvoice('ord_unknown')).rejects.toMatchObject({ status: 404 })
    await expect(
      money.refunds.refund({ orderId, amount: 100, actorId: 'admin-1', note: 'crypto' }),
    ).rejects.toMatchObject({ code: 'REFUND_NOT_ALLOWED', details: { reason: 'not-refundable' } })
  })
})
