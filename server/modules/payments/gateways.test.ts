import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '#server/config.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createPaymentGateways, PROVIDERS } from './gateways.ts'
import { createSandboxGateway, sandboxOutcome, sandboxSubscriptionId } from './sandbox-gateway.ts'

// Which gateway takes a payment, from the configuration alone, and the sandbox standing in for the
// providers whose keys are missing.

const config = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tw-gateways-')), ...env })
const STRIPE = { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }

describe('the payment gateways of a configuration', () => {
  it('gives each payment type its configured provider, else the sandbox when it is on, else nobody', () => {
    const both = createPaymentGateways(config({ ...STRIPE, PAYMENTS_SANDBOX: 'true' }))
    expect(both.forType('card')?.provider).toBe('stripe')
    expect(both.forType('crypto')?.provider).toBe('sandbox')
    expect(both.sandboxOn).toBe(true)

    const off = createPaymentGateways(config({ ...STRIPE, PAYMENTS_SANDBOX: 'false' }))
    expect(off.forType('card')?.provider).toBe('stripe')
    expect(off.forType('crypto')).toBeUndefined()
    // Plans bought in the sandbox earlier are still managed by it; BTCPay's are nobody's here.
    expect(off.of('sandbox')?.provider).toBe('sandbox')
    expect(off.of('btcpay')).toBeUndefined()
  })

  it('lists every known provider for its webhook URL, configured or not', () => {
    const gateways = createPaymentGateways(config({ ...STRIPE, PAYMENTS_SANDBOX: 'false' }))
    expect(gateways.webhooks.map(({ definition }) => definition.provider)).toEqual(['stripe', 'btcpay'])
    expect(gateways.webhooks.map(({ gateway }) => gateway?.provider)).toEqual(['stripe', undefined])
    expect(PROVIDERS.map((p) => p.paymentTypes)).toEqual([['card'], ['crypto']])
  })
})

describe('the sandbox gateway', () => {
  const sandbox = createSandboxGateway('https://taleweave.test')

  it('opens its own page in the buyer’s language, with nothing to close elsewhere', async () => {
    const request = {
      orderId: 'ord_sandbox_000000000000001',
      userId: '00000000-0000-4000-8000-000000000004',
      planId: 'plus',
      planName: 'Plus',
      billingCycle: 'monthly' as const,
      amount: 999,
      currency: 'USD',
      successUrl: '',
      cancelUrl: '',
    }
    expect(await sandbox.startCheckout({ ...request, locale: 'fr' })).toEqual({
      providerRef: null,
      paymentUrl: 'https://taleweave.test/fr/subscribe/sandbox?orderId=ord_sandbox_000000000000001',
    })
    expect((await sandbox.startCheckout({ ...request, locale: 'en' })).paymentUrl).toBe(
      'https://taleweave.test/subscribe/sandbox?orderId=ord_sandbox_000000000000001',
    )
    expect(await sandbox.closeCheckout('anything')).toBe('closed')
  })

  it('changes a plan at once: the same cycle keeps its period end, a new cycle starts a new period', async () => {
    const end = new Date(Date.now() + 10 * 86_400_000)
    const change = (billingCycle: 'monthly' | 'yearly') =>
      sandbox.subscriptions?.changePlan({
        providerSubscriptionId: 'sandbox_sub_1',
        planId: 'pro',
        planName: 'Pro',
        billingCycle,
        amount: 2999,
        currency: 'USD',
        idempotencyKey: 'k',
        current: { billingCycle: 'monthly', currentPeriodEnd: end },
      })
    expect(await change('monthly')).toMatchObject({ kind: 'subscription-changed', planId: 'pro', periodEnd: end })
    const yearly = await change('yearly')
    expect(yearly?.periodEnd?.getTime()).toBeGreaterThan(Date.now() + 364 * 86_400_000)
  })

  it('its buttons: a paid card order carries a stand-in subscription, a crypto one none', () => {
    const card = { id: 'ord_sandbox_000000000000002', paymentType: 'card' as const }
    expect(sandboxOutcome(card, 'paid')).toEqual({
      kind: 'order-paid',
      orderId: card.id,
      providerSubscriptionId: sandboxSubscriptionId(card.id),
    })
    expect(sandboxOutcome({ ...card, paymentType: 'crypto' }, 'paid')).toEqual({ kind: 'order-paid', orderId: card.id })
    expect(sandboxOutcome(card, 'canceled')).toEqual({ kind: 'order-closed', orderId: card.id, status: 'canceled' })
  })
})

describe('webhook URLs of providers not configured', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp({ env: { ...STRIPE, PAYMENTS_SANDBOX: 'false' } })
  })
  afterAll(() => t.close())

  it('answer 404 and record nothing; a configured provider’s refuses an unsigned delivery with 400', async () => {
    const btcpay = await t.app.inject({ method: 'POST', url: '/api/webhooks/btcpay', payload: { type: 'x' } })
    expect(btcpay.statusCode).toBe(404)
    expect(btcpay.json().message).toBe('Crypto payments are not configured')
    const stripe = await t.app.inject({ method: 'POST', url: '/api/webhooks/stripe', payload: { id: 'evt_1' } })
    expect(stripe.statusCode).toBe(400)
    expect(stripe.json().message).toBe('Invalid signature')
  })
})
