import { createHmac, timingSafeEqual } from 'node:crypto'
import { AppError } from '#server/lib/errors.ts'
import {
  type CheckoutRequest,
  headerValue,
  type PaymentGateway,
  type PaymentOutcome,
  type ProviderDefinition,
} from './gateway.ts'

export type BtcpayInvoice = {
  id: string
  status: string
  amount: string
  currency: string
  checkoutLink?: string
  metadata?: Record<string, unknown>
}

const minorDigits = (currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2

/** Minor units to the decimal string BTCPay expects: 999 USD → "9.99", 500 JPY → "500". */
export function toDecimalAmount(minor: number, currency: string): string {
  const digits = minorDigits(currency)
  return (minor / 10 ** digits).toFixed(digits)
}

/** BTCPay's decimal string back to minor units: "9.99" USD → 999. */
export const toMinorAmount = (amount: string, currency: string) =>
  Math.round(Number(amount) * 10 ** minorDigits(currency))

/** The invoice events that can settle or close an order; the rest are recorded and ignored. */
const INVOICE_EVENTS = ['InvoiceSettled', 'InvoiceExpired', 'InvoiceInvalid', 'InvoicePaymentSettled']

/**
 * Crypto payments through a BTCPay Server's Greenfield API: an invoice per order, paid once (no
 * subscription: a crypto plan does not renew), and webhooks signed with HMAC-SHA256 of the raw body
 * (`BTCPay-Sig: sha256=<hex>`).
 */
export function createBtcpayGateway(options: {
  url: string
  apiKey: string
  storeId: string
  webhookSecret: string
}): PaymentGateway {
  const base = `${options.url.replace(/\/+$/, '')}/api/v1/stores/${encodeURIComponent(options.storeId)}/invoices`

  async function call<T>(path: string, init: { method: string; body?: unknown }): Promise<T> {
    const response = await fetch(`${base}${path}`, {
      method: init.method,
      headers: {
        authorization: `token ${options.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    })
    if (!response.ok) throw new Error(`BTCPay answered ${response.status} to ${init.method} ${path || '/'}`)
    return (await response.json()) as T
  }

  const getInvoice = (invoiceId: string) => call<BtcpayInvoice>(`/${encodeURIComponent(invoiceId)}`, { method: 'GET' })

  /**
   * Whether an invoice received its whole amount, whatever its status says: an invoice marked
   * invalid stays invalid when a payment still reaches it, and that money is credited all the
   * same (ADR 025). Each payment method's `due` is what is left to pay in its own currency.
   */
  async function paidInFull(invoiceId: string): Promise<boolean> {
    const methods = await call<{ due?: string; paymentMethodPaid?: string }[]>(
      `/${encodeURIComponent(invoiceId)}/payment-methods`,
      { method: 'GET' },
    )
    return methods.some((method) => Number(method.paymentMethodPaid ?? 0) > 0 && Number(method.due ?? 1) <= 0)
  }

  function signedByBtcpay(rawBody: Buffer, signature: string | undefined): boolean {
    if (!signature?.startsWith('sha256=')) return false
    const expected = createHmac('sha256', options.webhookSecret).update(rawBody).digest()
    const given = Buffer.from(signature.slice(7), 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /** What an invoice event means for its order. The webhook says what happened; the invoice itself, fetched from the server, is the truth. */
  async function invoiceOutcome(type: string, invoiceId: string): Promise<PaymentOutcome | undefined> {
    const invoice = await getInvoice(invoiceId)
    const orderId = String(invoice.metadata?.orderId ?? '')
    if (!orderId) return undefined
    // An invoice we marked invalid (a new checkout closed it, ADR 025) stays invalid when a
    // payment still reaches it: once its payments cover the amount, the money buys time all
    // the same, never lost.
    const paidWhileClosed =
      type === 'InvoicePaymentSettled' && invoice.status === 'Invalid' && (await paidInFull(invoiceId))
    if (invoice.status === 'Settled' || paidWhileClosed) {
      return {
        kind: 'order-paid',
        orderId,
        amount: toMinorAmount(invoice.amount, invoice.currency),
        currency: invoice.currency,
      }
    }
    if (type !== 'InvoicePaymentSettled' && (invoice.status === 'Expired' || invoice.status === 'Invalid')) {
      return { kind: 'order-closed', orderId, status: invoice.status === 'Expired' ? 'expired' : 'failed' }
    }
    return undefined
  }

  return {
    provider: 'btcpay',
    paymentTypes: ['crypto'],

    /** The invoice as BTCPay holds it now (the console's refresh, ADR 056). */
    async checkoutState(invoiceId: string) {
      const invoice = await getInvoice(invoiceId)
      return {
        status: invoice.status,
        amount: toMinorAmount(invoice.amount, invoice.currency),
        currency: invoice.currency,
      }
    },

    async startCheckout(request: CheckoutRequest) {
      const invoice = await call<BtcpayInvoice>('', {
        method: 'POST',
        body: {
          amount: toDecimalAmount(request.amount, request.currency),
          currency: request.currency,
          metadata: {
            userId: request.userId,
            planId: request.planId,
            billingCycle: request.billingCycle,
            orderId: request.orderId,
          },
          checkout: { redirectURL: request.successUrl, redirectAutomatically: true },
        },
      })
      if (!invoice.checkoutLink) throw new Error('BTCPay returned an invoice without a checkout link')
      return { providerRef: invoice.id, paymentUrl: invoice.checkoutLink }
    },

    /**
     * Closes a new invoice so its checkout stops taking payments (ADR 025): Greenfield's
     * `POST .../invoices/{id}/status` with `Invalid`. An invoice already paid or being confirmed
     * is left alone and reported as `paid`; an expired or invalid one is closed already.
     */
    async closeCheckout(invoiceId) {
      const invoice = await getInvoice(invoiceId)
      if (invoice.status === 'Processing' || invoice.status === 'Settled') return 'paid'
      if (invoice.status === 'New') {
        await call<BtcpayInvoice>(`/${encodeURIComponent(invoiceId)}/status`, {
          method: 'POST',
          body: { status: 'Invalid' },
        })
      }
      return 'closed'
    },

    /** A delivery signed with the webhook secret, for this store, with a delivery id (the event id). */
    async parseWebhook(rawBody, headers) {
      if (!signedByBtcpay(rawBody, headerValue(headers['btcpay-sig']))) throw AppError.badRequest('Invalid signature')
      let event: Record<string, unknown>
      try {
        event = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>
      } catch {
        throw AppError.badRequest('Invalid JSON')
      }
      const type = String(event.type ?? '')
      // A redelivery carries the first delivery's id, so it counts as the same event.
      const deliveryId = String(event.originalDeliveryId ?? event.deliveryId ?? '')
      const invoiceId = typeof event.invoiceId === 'string' ? event.invoiceId : undefined
      if (!deliveryId) throw AppError.badRequest('No delivery id')
      if (event.storeId !== options.storeId) throw AppError.badRequest('Another store')
      const outcome = invoiceId && INVOICE_EVENTS.includes(type) ? await invoiceOutcome(type, invoiceId) : undefined
      const at = typeof event.timestamp === 'number' ? new Date(event.timestamp * 1000) : new Date()
      return { event: { id: deliveryId, type, at }, outcome }
    },
  }
}

/** Crypto plans through BTCPay Server, when BTCPAY_URL, _API_KEY, _STORE_ID and _WEBHOOK_SECRET are set. */
export const btcpayProvider: ProviderDefinition = {
  provider: 'btcpay',
  name: 'BTCPay Server',
  paymentTypes: ['crypto'],
  create: ({ btcpay }) =>
    btcpay.url && btcpay.apiKey && btcpay.storeId && btcpay.webhookSecret
      ? createBtcpayGateway({
          url: btcpay.url,
          apiKey: btcpay.apiKey,
          storeId: btcpay.storeId,
          webhookSecret: btcpay.webhookSecret,
        })
      : undefined,
}
