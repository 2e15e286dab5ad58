import { createHmac, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

type Invoice = {
  id: string
  storeId: string
  status: 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid'
  amount: string
  currency: string
  checkoutLink: string
  metadata: Record<string, unknown>
  checkout: Record<string, unknown>
  createdTime: number
  /** `Marked` once the merchant set the status by hand (Greenfield's mark-status call). */
  additionalStatus: 'None' | 'Marked' | 'PaidLate'
  /** What the buyer sent, in the invoice's currency (one payment method, its rate 1 for the test). */
  paid: number
}

/**
 * A BTCPay Server's Greenfield API as far as the product uses it: create an invoice
 * (`POST /api/v1/stores/{storeId}/invoices`), read one (`GET .../invoices/{id}`) and its payment
 * methods (`GET .../invoices/{id}/payment-methods`), and mark its status
 * (`POST .../invoices/{id}/status` with `{"status":"Invalid"|"Settled"}`, refused with 400 for an
 * invoice that cannot take that status), all with `Authorization: token <key>`; plus `webhook()`
 * building a delivery signed as BTCPay signs them (`BTCPay-Sig: sha256=<HMAC-SHA256 hex of the
 * body>`). `pay()` is the buyer sending the whole amount: a new or expired invoice settles, while
 * one marked invalid keeps its status and only records the payment, as BTCPay does.
 */
export async function startBtcpay(options: { apiKey: string; storeId: string; webhookSecret: string }) {
  const invoices = new Map<string, Invoice>()
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `token ${options.apiKey}`) return send(401, { code: 'unauthenticated' })
    const base = `/api/v1/stores/${options.storeId}/invoices`
    const body = await readBody(req)
    if (req.method === 'POST' && req.url === base) {
      const input = JSON.parse(body) as { amount: string; currency: string; metadata?: object; checkout?: object }
      if (!/^\d+(\.\d+)?$/.test(input.amount)) return send(422, [{ path: 'amount', message: 'invalid amount' }])
      const id = randomBytes(11).toString('base64url')
      const invoice: Invoice = {
        id,
        storeId: options.storeId,
        status: 'New',
        amount: input.amount,
        currency: input.currency,
        checkoutLink: `https://btcpay.test/i/${id}`,
        metadata: { ...(input.metadata ?? {}) },
        checkout: { ...(input.checkout ?? {}) },
        createdTime: Math.floor(Date.now() / 1000),
        additionalStatus: 'None',
        paid: 0,
      }
      invoices.set(id, invoice)
      return send(200, invoice)
    }
    const [, id = '', action = ''] = /^([^/]+)(?:\/(status|payment-methods))?$/.exec(
      req.url?.startsWith(`${base}/`) ? req.url.slice(base.length + 1) : '',
    ) ?? ['', '', '']
    const invoice = invoices.get(decodeURIComponent(id))
    if (!invoice) return send(404, { code: 'invoice-not-found', message: 'The invoice was not found' })
    if (req.method === 'GET' && action === '') return send(200, invoice)
    if (req.method === 'GET' && action === 'payment-methods') {
      const amount = Number(invoice.amount)
      return send(200, [
        {
          paymentMethodId: 'BTC-CHAIN',
          amount: invoice.amount,
          paymentMethodPaid: invoice.paid.toFixed(2),
          totalPaid: invoice.paid.toFixed(2),
          due: Math.max(0, amount - invoice.paid).toFixed(2),
          rate: '1',
        },
      ])
    }
    if (req.method === 'POST' && action === 'status') {
      const { status } = JSON.parse(body) as { status?: string }
      // BTCPay's CanMarkInvalid / CanMarkComplete: not an invoice already in that state, nor a settled one.
      const allowed =
        status === 'Invalid'
          ? ['New', 'Processing', 'Expired'].includes(invoice.status)
          : status === 'Settled' && invoice.status !== 'Settled'
      if (!allowed) return send(400, { code: 'invoice-state-invalid', message: `Cannot mark invoice as ${status}` })
      Object.assign(invoice, { status, additionalStatus: 'Marked' })
      return send(200, invoice)
    }
    send(404, { code: 'not-found', message: 'Not found' })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    invoices,
    setStatus(invoiceId: string, status: Invoice['status']) {
      const invoice = invoices.get(invoiceId)
      if (!invoice) throw new Error(`no invoice ${invoiceId}`)
      invoice.status = status
    },
    /** The buyer pays the whole amount (see above for what becomes of the invoice's status). */
    pay(invoiceId: string) {
      const invoice = invoices.get(invoiceId)
      if (!invoice) throw new Error(`no invoice ${invoiceId}`)
      invoice.paid = Number(invoice.amount)
      if (invoice.status === 'Expired') invoice.additionalStatus = 'PaidLate'
      if (invoice.status === 'New' || invoice.status === 'Expired') invoice.status = 'Settled'
    },
    /** A webhook delivery for an invoice, signed with the store's webhook secret. */
    webhook(type: string, invoiceId: string, extra: { secret?: string; deliveryId?: string } = {}) {
      const deliveryId = extra.deliveryId ?? randomBytes(10).toString('base64url')
      const payload = JSON.stringify({
        deliveryId,
        webhookId: 'wh_test',
        originalDeliveryId: deliveryId,
        isRedelivery: false,
        type,
        timestamp: Math.floor(Date.now() / 1000),
        storeId: options.storeId,
        invoiceId,
        metadata: invoices.get(invoiceId)?.metadata,
      })
      const signature = `sha256=${createHmac('sha256', extra.secret ?? options.webhookSecret)
        .update(payload)
        .digest('hex')}`
      return { payload, signature, deliveryId }
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

export type BtcpayDouble = Awaited<ReturnType<typeof startBtcpay>>
