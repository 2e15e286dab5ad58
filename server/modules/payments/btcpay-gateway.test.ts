import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BtcpayDouble, startBtcpay } from '#tests/doubles/btcpay.ts'
import { createBtcpayGateway, toDecimalAmount, toMinorAmount } from './btcpay-gateway.ts'
import type { CheckoutRequest, PaymentGateway } from './gateway.ts'

// The BTCPay gateway alone, against the BTCPay double: invoices opened and closed, and signed
// webhooks turned into provider-neutral outcomes from the invoice as the server holds it.

const keys = { apiKey: 'btcpay-key', storeId: 'store-gateway', webhookSecret: 'btcpay-secret' }
const request = (orderId: string): CheckoutRequest => ({
  orderId,
  userId: '00000000-0000-4000-8000-000000000002',
  planId: 'plus',
  planName: 'Plus',
  billingCycle: 'monthly',
  amount: 999,
  currency: 'USD',
  locale: 'de',
  successUrl: `https://taleweave.test/de/subscribe/success?orderId=${orderId}`,
  cancelUrl: 'https://taleweave.test/de/subscribe',
})

describe('the BTCPay gateway', () => {
  let btcpay: BtcpayDouble
  let gateway: PaymentGateway
  const parse = (delivery: { payload: string; signature: string }) =>
    gateway.parseWebhook(Buffer.from(delivery.payload), { 'btcpay-sig': delivery.signature })
  beforeAll(async () => {
    btcpay = await startBtcpay(keys)
    gateway = createBtcpayGateway({ ...keys, url: btcpay.url })
  })
  afterAll(() => btcpay.close())

  it('converts minor units both ways by the currency’s digits', () => {
    expect(toDecimalAmount(999, 'USD')).toBe('9.99')
    expect(toDecimalAmount(500, 'JPY')).toBe('500')
    expect(toMinorAmount('9.99', 'USD')).toBe(999)
    expect(toMinorAmount('500', 'JPY')).toBe(500)
  })

  it('opens an invoice for the order and reads its settlement as order-paid, in minor units', async () => {
    const checkout = await gateway.startCheckout(request('ord_btcpay_paid_0000000001'))
    const invoice = btcpay.invoices.get(String(checkout.providerRef))
    expect(invoice).toMatchObject({ amount: '9.99', currency: 'USD', status: 'New' })
    expect(invoice?.metadata).toMatchObject({ orderId: 'ord_btcpay_paid_0000000001', planId: 'plus' })
    expect(invoice?.checkout).toMatchObject({ redirectURL: request('ord_btcpay_paid_0000000001').successUrl })
    expect(checkout.paymentUrl).toBe(invoice?.checkoutLink)

    btcpay.pay(String(checkout.providerRef))
    const delivery = btcpay.webhook('InvoiceSettled', String(checkout.providerRef))
    const parsed = await parse(delivery)
    expect(parsed.event).toMatchObject({ id: delivery.deliveryId, type: 'InvoiceSettled' })
    expect(parsed.outcome).toEqual({
      kind: 'order-paid',
      orderId: 'ord_btcpay_paid_0000000001',
      amount: 999,
      currency: 'USD',
    })
    // Paid: closing it is refused as `paid`, and its status stays.
    expect(await gateway.closeCheckout(String(checkout.providerRef))).toBe('paid')
    expect(btcpay.invoices.get(String(checkout.providerRef))?.status).toBe('Settled')
  })

  it('closes a new invoice (marked invalid) and reads that as a failed order; a late full payment still pays', async () => {
    const checkout = await gateway.startCheckout(request('ord_btcpay_close_000000001'))
    const invoiceId = String(checkout.providerRef)
    expect(await gateway.closeCheckout(invoiceId)).toBe('closed')
    expect(btcpay.invoices.get(invoiceId)?.status).toBe('Invalid')
    expect((await parse(btcpay.webhook('InvoiceInvalid', invoiceId))).outcome).toEqual({
      kind: 'order-closed',
      orderId: 'ord_btcpay_close_000000001',
      status: 'failed',
    })
    btcpay.pay(invoiceId)
    expect((await parse(btcpay.webhook('InvoicePaymentSettled', invoiceId))).outcome).toMatchObject({
      kind: 'order-paid',
      orderId: 'ord_btcpay_close_000000001',
    })
  })

  it('refuses a bad signature, another store’s delivery and one without an id with a 400', async () => {
    const checkout = await gateway.startCheckout(request('ord_btcpay_bad_00000000001'))
    const invoiceId = String(checkout.providerRef)
    await expect(parse(btcpay.webhook('InvoiceSettled', invoiceId, { secret: 'wrong' }))).rejects.toMatchObject({
      status: 400,
      message: 'Invalid signature',
    })
    const delivery = btcpay.webhook('InvoiceSettled', invoiceId)
    await expect(gateway.parseWebhook(Buffer.from(delivery.payload), {})).rejects.toMatchObject({ status: 400 })
    const other = createBtcpayGateway({ ...keys, storeId: 'another-store', url: btcpay.url })
    await expect(
      other.parseWebhook(Buffer.from(delivery.payload), { 'btcpay-sig': delivery.signature }),
    ).rejects.toMatchObject({ status: 400, message: 'Another store' })
    // Signed right, but with no event id to record it under.
    const body = JSON.stringify({ ...JSON.parse(delivery.payload), deliveryId: '', originalDeliveryId: '' })
    const signature = `sha256=${createHmac('sha256', keys.webhookSecret).update(body).digest('hex')}`
    await expect(gateway.parseWebhook(Buffer.from(body), { 'btcpay-sig': signature })).rejects.toMatchObject({
      status: 400,
      message: 'No delivery id',
    })
  })
})
