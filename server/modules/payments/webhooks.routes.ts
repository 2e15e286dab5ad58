import type { FastifyPluginAsync } from 'fastify'
import { AppError } from '#server/lib/errors.ts'
import { type BtcpayGateway, toDecimalAmount } from './btcpay-gateway.ts'
import type { PaymentOutcome, PaymentsService } from './payments.service.ts'
import { type StripeEvent, type StripeGateway, subscriptionChange } from './stripe-gateway.ts'

type Loose = Record<string, unknown> | null | undefined

const idOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof (value as Loose)?.id === 'string'
      ? String((value as Loose)?.id)
      : undefined

/** What a Stripe event means for our orders and subscriptions; undefined for events we ignore. */
export function stripeOutcome(event: StripeEvent): PaymentOutcome | undefined {
  const object = event.data.object as unknown as Record<string, unknown>
  const metadata = (object.metadata ?? {}) as Record<string, string>
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (object.mode !== 'subscription') return undefined
      if (object.payment_status !== 'paid' && object.payment_status !== 'no_payment_required') return undefined
      const orderId = metadata.orderId ?? (object.client_reference_id as string | undefined)
      if (!orderId) return undefined
      return {
        kind: 'order-paid',
        orderId,
        providerSubscriptionId: idOf(object.subscription),
        amount: typeof object.amount_total === 'number' ? object.amount_total : undefined,
        currency: typeof object.currency === 'string' ? object.currency : undefined,
      }
    }
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const orderId = metadata.orderId ?? (object.client_reference_id as string | undefined)
      if (!orderId) return undefined
      return {
        kind: 'order-closed',
        orderId,
        status: event.type === 'checkout.session.expired' ? 'expired' : 'failed',
      }
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      // The subscription moved under `parent.subscription_details` in recent API versions.
      const details = ((object.parent as Loose)?.subscription_details ?? {}) as Record<string, unknown>
      const subscriptionId = idOf(details.subscription) ?? idOf(object.subscription)
      if (!subscriptionId) return undefined
      const subMetadata = (details.metadata ?? {}) as Record<string, string>
      if (object.billing_reason === 'subscription_create') {
        // The first invoice may arrive before checkout.session.completed; either one settles the order.
        if (event.type !== 'invoice.paid' || !subMetadata.orderId) return undefined
        return { kind: 'order-paid', orderId: subMetadata.orderId, providerSubscriptionId: subscriptionId }
      }
      // A plan change whose prorated charge failed: with pending updates the subscription stays as
      // it was and keeps renewing (ADR 025), so this is no failed renewal.
      if (event.type === 'invoice.payment_failed' && object.billing_reason === 'subscription_update') return undefined
      if (event.type === 'invoice.payment_failed')
        return { kind: 'renewal-failed', providerSubscriptionId: subscriptionId }
      const lines = ((object.lines as Loose)?.data ?? []) as { period?: { end?: number } }[]
      const ends = lines.map((line) => line.period?.end ?? 0)
      const periodEnd = Math.max(...ends, typeof object.period_end === 'number' ? object.period_end : 0)
      return { kind: 'renewal-paid', providerSubscriptionId: subscriptionId, periodEnd: new Date(periodEnd * 1000) }
    }
    case 'customer.subscription.deleted': {
      const endedAt = typeof object.ended_at === 'number' ? object.ended_at : event.created
      return {
        kind: 'subscription-ended',
        providerSubscriptionId: String(object.id),
        endedAt: new Date(endedAt * 1000),
      }
    }
    case 'customer.subscription.updated':
      return subscriptionChange(object)
    default:
      return undefined
  }
}

const decimalToMinor = (amount: string, currency: string) => {
  const digits = toDecimalAmount(0, currency).split('.')[1]?.length ?? 0
  return Math.round(Number(amount) * 10 ** digits)
}

/**
 * `POST /api/webhooks/stripe` and `POST /api/webhooks/btcpay`. Both read the raw body, because the
 * signature covers the exact bytes; a bad signature is a 400 and changes nothing. Errors while
 * applying an event answer 5xx/409 so the provider delivers it again later.
 */
export function webhookRoutes(
  payments: PaymentsService,
  gateways: { stripe?: StripeGateway; btcpay?: BtcpayGateway; btcpayStoreId?: string },
): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_request, body, done) =>
      done(null, body),
    )

    app.post(
      '/webhooks/stripe',
      { schema: { tags: ['payments'], summary: 'Stripe webhook (signed)' } },
      async (request) => {
        const stripe = gateways.stripe
        if (!stripe) throw AppError.notFound('Card payments are not configured')
        const signature = request.headers['stripe-signature']
        let event: StripeEvent
        try {
          event = stripe.verify(request.body as Buffer, typeof signature === 'string' ? signature : '')
        } catch {
          throw AppError.badRequest('Invalid signature')
        }
        const handled = await payments.handleEvent(
          'stripe',
          { id: event.id, type: event.type, at: new Date(event.created * 1000) },
          stripeOutcome(event),
        )
        return { received: true, duplicate: !handled }
      },
    )

    app.post(
      '/webhooks/btcpay',
      { schema: { tags: ['payments'], summary: 'BTCPay webhook (signed)' } },
      async (request) => {
        const btcpay = gateways.btcpay
        if (!btcpay) throw AppError.notFound('Crypto payments are not configured')
        const raw = request.body as Buffer
        const signature = request.headers['btcpay-sig']
        if (!btcpay.verify(raw, typeof signature === 'string' ? signature : undefined)) {
          throw AppError.badRequest('Invalid signature')
        }
        let event: Record<string, unknown>
        try {
          event = JSON.parse(raw.toString('utf8')) as Record<string, unknown>
        } catch {
          throw AppError.badRequest('Invalid JSON')
        }
        const type = String(event.type ?? '')
        const deliveryId = String(event.originalDeliveryId ?? event.deliveryId ?? '')
        const invoiceId = typeof event.invoiceId === 'string' ? event.invoiceId : undefined
        if (!deliveryId) throw AppError.badRequest('No delivery id')
        if (gateways.btcpayStoreId && event.storeId !== gateways.btcpayStoreId)
          throw AppError.badRequest('Another store')
        let outcome: PaymentOutcome | undefined
        if (
          invoiceId &&
          ['InvoiceSettled', 'InvoiceExpired', 'InvoiceInvalid', 'InvoicePaymentSettled'].includes(type)
        ) {
          // The webhook says what happened; the invoice itself, fetched from the server, is the truth.
          const invoice = await btcpay.getInvoice(invoiceId)
          const orderId = String(invoice.metadata?.orderId ?? '')
          // An invoice we marked invalid (a new checkout closed it, ADR 025) stays invalid when a
          // payment still reaches it: once its payments cover the amount, the money buys time all
          // the same, never lost.
          const paidWhileClosed =
            type === 'InvoicePaymentSettled' && invoice.status === 'Invalid' && (await btcpay.paidInFull(invoiceId))
          if (orderId && (invoice.status === 'Settled' || paidWhileClosed)) {
            outcome = {
              kind: 'order-paid',
              orderId,
              amount: decimalToMinor(invoice.amount, invoice.currency),
              currency: invoice.currency,
            }
          } else if (
            orderId &&
            type !== 'InvoicePaymentSettled' &&
            (invoice.status === 'Expired' || invoice.status === 'Invalid')
          ) {
            outcome = { kind: 'order-closed', orderId, status: invoice.status === 'Expired' ? 'expired' : 'failed' }
          }
        }
        const at = typeof event.timestamp === 'number' ? new Date(event.timestamp * 1000) : new Date()
        const handled = await payments.handleEvent('btcpay', { id: deliveryId, type, at }, outcome)
        return { received: true, duplicate: !handled }
      },
    )
  }
}
