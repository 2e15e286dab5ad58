import { adminApi } from '#app/features/console/admin-api.ts'
import type {
  MoneyInvoiceState,
  MoneyOrder,
  MoneyOrderDetail,
  MoneyPage,
  MoneyPreview,
  MoneyRefundResult,
  MoneySubscription,
  MoneyWebhook,
} from '#contracts/admin-money.ts'

/** The money console's calls (`/api/admin/money/...`, ADR 056), through the console's `adminApi`. */
type Query = Record<string, string | number | undefined>

function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(key, String(value))
  const text = params.toString()
  return text ? `${path}?${text}` : path
}

export const listOrders = (query: Query, signal?: AbortSignal) =>
  adminApi<MoneyPage<MoneyOrder>>(withQuery('/admin/money/orders', query), { signal })

export const getOrder = (id: string, signal?: AbortSignal) =>
  adminApi<MoneyOrderDetail>(`/admin/money/orders/${encodeURIComponent(id)}`, { signal })

export const previewRefund = (id: string, amount: number) =>
  adminApi<MoneyPreview>(withQuery(`/admin/money/orders/${encodeURIComponent(id)}/refund-preview`, { amount }))

export const refundOrder = (id: string, amount: number | undefined, note: string) =>
  adminApi<MoneyRefundResult>(`/admin/money/orders/${encodeURIComponent(id)}/refund`, {
    method: 'POST',
    body: amount === undefined ? { note } : { amount, note },
  })

export const listSubscriptions = (query: Query, signal?: AbortSignal) =>
  adminApi<MoneyPage<MoneySubscription>>(withQuery('/admin/money/subscriptions', query), { signal })

export const cancelSubscription = (userId: string, when: 'period-end' | 'now', note: string) =>
  adminApi<MoneySubscription | null>(`/admin/money/subscriptions/${encodeURIComponent(userId)}/cancel`, {
    method: 'POST',
    body: { when, note },
  })

export const listWebhooks = (query: Query, signal?: AbortSignal) =>
  adminApi<MoneyPage<MoneyWebhook>>(withQuery('/admin/money/webhooks', query), { signal })

export const listInvoices = (query: Query, signal?: AbortSignal) =>
  adminApi<MoneyPage<MoneyOrder>>(withQuery('/admin/money/btcpay', query), { signal })

export const refreshInvoice = (orderId: string) =>
  adminApi<MoneyInvoiceState>(`/admin/money/btcpay/${encodeURIComponent(orderId)}/refresh`, { method: 'POST' })
