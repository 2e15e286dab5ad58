import { createHmac, timingSafeEqual } from 'node:crypto'

export type BtcpayInvoice = {
  id: string
  status: string
  amount: string
  currency: string
  checkoutLink?: string
  metadata?: Record<string, unknown>
}

/** Minor units to the decimal string BTCPay expects: 999 USD → "9.99", 500 JPY → "500". */
export function toDecimalAmount(minor: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  return (minor / 10 ** digits).toFixed(digits)
}

/**
 * Crypto payments through a BTCPay Server's Greenfield API: an invoice per order, and webhooks
 * signed with HMAC-SHA256 of the raw body (`BTCPay-Sig: sha256=<hex>`).
 */
export function createBtcpayGateway(options: { url: string; apiKey: string; storeId: string; webhookSecret: string }) {
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

  return {
    async createInvoice(request: {
      orderId: string
      amount: number
      currency: string
      redirectUrl: string
      metadata: Record<string, string>
    }): Promise<{ id: string; url: string }> {
      const invoice = await call<BtcpayInvoice>('', {
        method: 'POST',
        body: {
          amount: toDecimalAmount(request.amount, request.currency),
          currency: request.currency,
          metadata: { ...request.metadata, orderId: request.orderId },
          checkout: { redirectURL: request.redirectUrl, redirectAutomatically: true },
        },
      })
      if (!invoice.checkoutLink) throw new Error('BTCPay returned an invoice without a checkout link')
      return { id: invoice.id, url: invoice.checkoutLink }
    },

    getInvoice,

    /**
     * Closes a new invoice so its checkout stops taking payments (ADR 025): Greenfield's
     * `POST .../invoices/{id}/status` with `Invalid`. An invoice already paid or being confirmed
     * is left alone and reported as `paid`; an expired or invalid one is closed already.
     */
    async closeInvoice(invoiceId: string): Promise<'closed' | 'paid'> {
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

    /**
     * Whether an invoice received its whole amount, whatever its status says: an invoice marked
     * invalid stays invalid when a payment still reaches it, and that money is credited all the
     * same (ADR 025). Each payment method's `due` is what is left to pay in its own currency.
     */
    async paidInFull(invoiceId: string): Promise<boolean> {
      const methods = await call<{ due?: string; paymentMethodPaid?: string }[]>(
        `/${encodeURIComponent(invoiceId)}/payment-methods`,
        { method: 'GET' },
      )
      return methods.some((method) => Number(method.paymentMethodPaid ?? 0) > 0 && Number(method.due ?? 1) <= 0)
    },

    verify(rawBody: Buffer, signature: string | undefined): boolean {
      if (!signature?.startsWith('sha256=')) return false
      const expected = createHmac('sha256', options.webhookSecret).update(rawBody).digest()
      const given = Buffer.from(signature.slice(7), 'hex')
      return given.length === expected.length && timingSafeEqual(given, expected)
    },
  }
}

export type BtcpayGateway = ReturnType<typeof createBtcpayGateway>
