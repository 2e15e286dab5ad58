import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  cancelBody,
  invoiceStateSchema,
  invoicesQuery,
  orderDetailSchema,
  orderIdParams,
  ordersPageSchema,
  ordersQuery,
  previewQuery,
  previewSchema,
  refundBody,
  refundResultSchema,
  subscriptionSchema,
  subscriptionsPageSchema,
  subscriptionsQuery,
  userIdParams,
  webhooksPageSchema,
  webhooksQuery,
} from '#contracts/admin-money.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import type { OrderView, SubscriptionView } from './money-console.ts'
import type { PaymentEventRow } from './payments.repo.ts'
import type { PaymentsService } from './payments.service.ts'
import type { RefundRow } from './refunds.repo.ts'

const tags = ['admin']
type MoneyConsole = ReturnType<PaymentsService['console']>

const iso = (d: Date) => d.toISOString()
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null)

const refundOut = (r: RefundRow) => ({
  id: r.id,
  orderId: r.orderId,
  userId: r.userId,
  amount: r.amount,
  currency: r.currency,
  status: r.status,
  providerRefundId: r.providerRefundId,
  diamondsDue: r.diamondsDue,
  diamondsTaken: r.diamondsTaken,
  endsPlan: r.endsPlan,
  actorId: r.actorId,
  note: r.note,
  failure: r.failure,
  appliedAt: isoOrNull(r.appliedAt),
  createdAt: iso(r.createdAt),
})
const orderOut = (o: OrderView) => ({
  ...o,
  createdAt: iso(o.createdAt),
  updatedAt: iso(o.updatedAt),
  paidAt: isoOrNull(o.paidAt),
  refunds: o.refunds.map(refundOut),
})
const subscriptionOut = (s: SubscriptionView) => ({
  ...s,
  currentPeriodEnd: iso(s.currentPeriodEnd),
  lastEventAt: isoOrNull(s.lastEventAt),
  updatedAt: iso(s.updatedAt),
})
const webhookOut = (e: PaymentEventRow) => ({
  ...e,
  receivedAt: iso(e.receivedAt),
  lastReceivedAt: isoOrNull(e.lastReceivedAt),
})

/**
 * The money side of the operator console (ADR 056, "Routes and pages"): admin only (moderators
 * handle content), second factor verified; a refund and a cancel also need a fresh confirmation.
 * Every route is gated in onRequest, before its body is read.
 */
export function moneyRoutes(money: MoneyConsole): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = { onRequest: app.requireStaff('admin') }
    const sensitiveAdmin = { onRequest: [app.requireStaff('admin'), app.requireFreshConfirmation] }

    app.get(
      '/admin/money/orders',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Orders newest first (user, provider, status, sandbox), with their refunds',
          querystring: ordersQuery,
          response: { 200: okSchema(ordersPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        const result = await money.orders(filter, page, pageSize)
        return ok({ ...result, items: result.items.map(orderOut) })
      },
    )

    app.get(
      '/admin/money/orders/:id',
      {
        ...admin,
        schema: {
          tags,
          summary: 'One order, its refunds and the preview of refunding what is left (null: not refundable)',
          params: orderIdParams,
          response: { 200: okSchema(orderDetailSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const order = await money.order(request.params.id)
        const preview = await money.refunds.preview(order.id).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'REFUND_NOT_ALLOWED') return null
          throw error
        })
        return ok({ order: orderOut(order), preview })
      },
    )

    app.get(
      '/admin/money/orders/:id/refund-preview',
      {
        ...admin,
        schema: {
          tags,
          summary: 'What refunding an amount would do to the money and the diamonds; changes nothing',
          params: orderIdParams,
          querystring: previewQuery,
          response: { 200: okSchema(previewSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await money.refunds.preview(request.params.id, request.query.amount))
      },
    )

    app.post(
      '/admin/money/orders/:id/refund',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: 'Refund a card payment, in part or in full (fresh confirmation); 409 REFUND_NOT_ALLOWED',
          params: orderIdParams,
          body: refundBody,
          response: { 200: okSchema(refundResultSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { amount, note } = request.body
        const result = await money.refunds.refund({
          orderId: request.params.id,
          ...(amount === undefined ? {} : { amount }),
          actorId: signedInUser(request),
          note,
        })
        return ok({ ...result, refund: refundOut(result.refund) })
      },
    )

    app.get(
      '/admin/money/subscriptions',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Subscriptions with their provider state and period',
          querystring: subscriptionsQuery,
          response: { 200: okSchema(subscriptionsPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        const result = await money.subscriptions(filter, page, pageSize)
        return ok({ ...result, items: result.items.map(subscriptionOut) })
      },
    )

    app.post(
      '/admin/money/subscriptions/:userId/cancel',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: "Cancel a user's plan at period end or now, at its provider (fresh confirmation)",
          params: userIdParams,
          body: cancelBody,
          response: { 200: okSchema(subscriptionSchema.nullable()) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const row = await money.cancelSubscription({
          userId: request.params.userId,
          when: request.body.when,
          actorId: signedInUser(request),
          note: request.body.note,
        })
        return ok(row ? subscriptionOut({ ...row, sandbox: row.provider === 'sandbox' }) : null)
      },
    )

    app.get(
      '/admin/money/webhooks',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Provider events received, newest first, with their outcome and replays',
          querystring: webhooksQuery,
          response: { 200: okSchema(webhooksPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        const result = await money.webhooks(filter, page, pageSize)
        return ok({ ...result, items: result.items.map(webhookOut) })
      },
    )

    app.get(
      '/admin/money/btcpay',
      {
        ...admin,
        schema: {
          tags,
          summary: 'BTCPay invoices (the orders of BTCPay), newest first',
          querystring: invoicesQuery,
          response: { 200: okSchema(ordersPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        const result = await money.orders({ ...filter, provider: 'btcpay' }, page, pageSize)
        return ok({ ...result, items: result.items.map(orderOut) })
      },
    )

    app.post(
      '/admin/money/btcpay/:id/refresh',
      {
        ...admin,
        schema: {
          tags,
          summary: "One invoice's state as BTCPay holds it now (read only: the webhook settles the order)",
          params: orderIdParams,
          response: { 200: okSchema(invoiceStateSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await money.refreshInvoice(request.params.id))
      },
    )
  }
}
