import type { Audit } from '#contracts/admin-audit.ts'
import { AppError } from '#server/lib/errors.ts'
import type { PaymentGateways } from './gateways.ts'
import type {
  EventFilter,
  OrderFilter,
  OrderRow,
  PaymentEventRow,
  PaymentsRepo,
  SubscriptionFilter,
  SubscriptionRow,
} from './payments.repo.ts'
import type { RefundRow, RefundsRepo } from './refunds.repo.ts'

/** A page of a console list, newest first; `hasMore` when another page follows. */
export type ListPage<T> = { items: T[]; page: number; pageSize: number; hasMore: boolean }

/** An order as the console shows it: the sandbox's marked, and what of it was refunded. */
export type OrderView = OrderRow & { sandbox: boolean; refundedAmount: number; refunds: RefundRow[] }
export type SubscriptionView = SubscriptionRow & { sandbox: boolean }

const PAGE_SIZE_MAX = 100

function pageOf(page = 1, pageSize = 50) {
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > PAGE_SIZE_MAX)
    throw AppError.badRequest('Invalid page', [{ path: 'page', in: 'querystring' }])
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize }
}

function paged<T>(rows: T[], page: { page: number; pageSize: number }): ListPage<T> {
  return {
    items: rows.slice(0, page.pageSize),
    page: page.page,
    pageSize: page.pageSize,
    hasMore: rows.length > page.pageSize,
  }
}

type ConsoleDeps = {
  repo: PaymentsRepo
  refunds: RefundsRepo
  gateways: PaymentGateways
  audit: Audit
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * The money side of the operator console (ADR 056): orders and subscriptions with their provider
 * state, the webhooks received and what became of them, BTCPay invoices, and cancelling a plan.
 * Refunds are `refunds.ts`. Staff routes call these behind the staff gate.
 */
export function createMoneyConsole(deps: ConsoleDeps) {
  const { repo, refunds, audit, log } = deps

  async function orders(filter: OrderFilter, page?: number, pageSize?: number): Promise<ListPage<OrderView>> {
    const p = pageOf(page, pageSize)
    const rows = paged(await repo.listOrders(filter, p), p)
    const all = await refunds.ofOrders(rows.items.map((o) => o.id))
    return {
      ...rows,
      items: rows.items.map((order) => {
        const own = all.filter((r) => r.orderId === order.id)
        return {
          ...order,
          sandbox: order.provider === 'sandbox',
          refundedAmount: own.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0),
          refunds: own,
        }
      }),
    }
  }

  return {
    /** Orders newest first (filters: user, provider, status, sandbox or not). */
    orders,

    /** One order with its refunds, as the lists show it. */
    async order(orderId: string): Promise<OrderView> {
      const order = await repo.findOrder(orderId)
      if (!order) throw AppError.notFound('Unknown order')
      const own = await refunds.ofOrders([order.id])
      return {
        ...order,
        sandbox: order.provider === 'sandbox',
        refundedAmount: own.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0),
        refunds: own,
      }
    },

    /** One user's orders, newest first. */
    ordersOf: (userId: string, page?: number) => orders({ userId }, page),

    /** Subscriptions with their state and period, most recently changed first. */
    async subscriptions(
      filter: SubscriptionFilter,
      page?: number,
      pageSize?: number,
    ): Promise<ListPage<SubscriptionView>> {
      const p = pageOf(page, pageSize)
      const rows = paged(await repo.listSubscriptions(filter, p), p)
      return { ...rows, items: rows.items.map((row) => ({ ...row, sandbox: row.provider === 'sandbox' })) }
    },

    /** Provider events received, newest first, with their outcome (applied, ignored, failed) and replays. */
    async webhooks(filter: EventFilter, page?: number, pageSize?: number): Promise<ListPage<PaymentEventRow>> {
      const p = pageOf(page, pageSize)
      return paged(await repo.listEvents(filter, p), p)
    },

    /** BTCPay invoices: the orders of that provider (the invoice is the order's `providerRef`). */
    btcpayInvoices: (filter: Omit<OrderFilter, 'provider'>, page?: number) =>
      orders({ ...filter, provider: 'btcpay' }, page),

    /** One invoice as BTCPay holds it now (read only: the webhook settles the order). */
    async refreshInvoice(orderId: string) {
      const order = await repo.findOrder(orderId)
      if (order?.provider !== 'btcpay' || !order.providerRef) throw AppError.notFound('Unknown invoice')
      const gateway = deps.gateways.of('btcpay')
      if (!gateway?.checkoutState) throw new AppError(503, 'SERVICE_UNAVAILABLE', 'BTCPay is not configured')
      const invoice = await gateway.checkoutState(order.providerRef)
      return { orderId: order.id, invoiceId: order.providerRef, orderStatus: order.status, invoice }
    },

    /**
     * Cancels a user's plan, at period end (the renewal stops) or at once, through the provider
     * that bills it; the intent and the outcome are audited, the change in the same transaction.
     */
    async cancelSubscription(input: { userId: string; when: 'period-end' | 'now'; actorId: string; note: string }) {
      const { userId, when, actorId, note } = input
      const row = await repo.currentSubscription(userId)
      if (!row) throw AppError.notFound('No paid plan to cancel')
      const providerSubscriptionId = row.providerSubscriptionId
      const base = { actorId, targetType: 'subscription' as const, targetId: userId, note }
      const atProvider = providerSubscriptionId !== null && row.status !== 'canceled' && row.provider !== 'sandbox'
      if (atProvider) {
        const manager = deps.gateways.of(row.provider)?.subscriptions
        if (!manager || (when === 'now' && !manager.cancelNow))
          throw new AppError(503, 'SERVICE_UNAVAILABLE', 'The payment provider is not configured; nothing was changed')
        await repo.transaction((tx) =>
          audit(tx, { ...base, action: 'subscription.cancel.requested', details: { when, providerSubscriptionId } }),
        )
        const key = `console:${providerSubscriptionId}:${when}:${row.updatedAt.getTime()}`
        try {
          if (when === 'now') await manager.cancelNow?.(providerSubscriptionId, key)
          else await manager.setRenewal(providerSubscriptionId, false, key)
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error)
          log({ userId, providerSubscriptionId, error: reason }, 'the provider did not cancel the plan')
          await repo.transaction((tx) =>
            audit(tx, {
              ...base,
              action: 'subscription.cancel.failed',
              details: { when, providerSubscriptionId, reason },
            }),
          )
          throw manager.failure(error)
        }
      }
      const now = new Date()
      return repo.transaction(async (tx) => {
        const current = await repo.lockSubscriptionOf(tx, userId)
        if (!current) throw AppError.notFound('No paid plan to cancel')
        const lastEventAt = current.lastEventAt && current.lastEventAt > now ? current.lastEventAt : now
        await repo.updateSubscription(
          tx,
          userId,
          when === 'now'
            ? {
                status: 'canceled',
                cancelAtPeriodEnd: true,
                currentPeriodEnd: current.currentPeriodEnd < now ? current.currentPeriodEnd : now,
                lastEventAt,
              }
            : { cancelAtPeriodEnd: true, lastEventAt },
        )
        await audit(tx, {
          ...base,
          action: 'subscription.cancel',
          details: { when, provider: current.provider, providerSubscriptionId, atProvider },
        })
        return repo.lockSubscriptionOf(tx, userId)
      })
    },
  }
}

export type MoneyConsole = ReturnType<typeof createMoneyConsole>
