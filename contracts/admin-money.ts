import { z } from 'zod'
import { ORDER_STATUSES, PAYMENT_TYPES } from './payments.ts'
import { BILLING_CYCLES } from './plans.ts'

/** The money console's calls (ADR 056, "Routes and pages"): admin only. */
export const MONEY_PROVIDERS = ['stripe', 'btcpay', 'sandbox'] as const
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const
export const WEBHOOK_OUTCOMES = ['applied', 'ignored', 'failed'] as const
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const

const paging = {
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(50),
}
/** `true`/`false` in a query string (a plain `z.coerce.boolean` reads "false" as true). */
const flag = z.enum(['true', 'false']).transform((v) => v === 'true')

export const ordersQuery = z.object({
  ...paging,
  userId: z.uuid().optional(),
  provider: z.enum(MONEY_PROVIDERS).optional(),
  status: z.enum(ORDER_STATUSES).optional(),
  sandbox: flag.optional(),
})
export const subscriptionsQuery = z.object({
  ...paging,
  userId: z.uuid().optional(),
  provider: z.enum(MONEY_PROVIDERS).optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
})
export const webhooksQuery = z.object({
  ...paging,
  provider: z.enum(MONEY_PROVIDERS).optional(),
  outcome: z.enum(WEBHOOK_OUTCOMES).optional(),
  duplicatesOnly: flag.optional(),
})
export const invoicesQuery = z.object({
  ...paging,
  userId: z.uuid().optional(),
  status: z.enum(ORDER_STATUSES).optional(),
})

export const orderIdParams = z.object({ id: z.string().min(1).max(100) })
export const userIdParams = z.object({ userId: z.uuid() })

export const previewQuery = z.object({ amount: z.coerce.number().int().positive().optional() })
export const refundBody = z.object({
  /** Minor units of the order's currency; absent: all that is left. */
  amount: z.number().int().positive().optional(),
  note: z.string().trim().min(1).max(2000),
})
export const cancelBody = z.object({
  when: z.enum(['period-end', 'now']),
  note: z.string().trim().min(1).max(2000),
})

export const refundSchema = z.object({
  id: z.string(),
  orderId: z.string(),
  userId: z.string().nullable(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(REFUND_STATUSES),
  providerRefundId: z.string().nullable(),
  diamondsDue: z.number().int(),
  diamondsTaken: z.number().int().nullable(),
  endsPlan: z.boolean(),
  actorId: z.string(),
  note: z.string(),
  failure: z.string().nullable(),
  appliedAt: z.string().nullable(),
  createdAt: z.string(),
})

export const orderSchema = z.object({
  id: z.string(),
  userId: z.string().nullable(),
  planId: z.string(),
  billingCycle: z.enum(BILLING_CYCLES),
  paymentType: z.enum(PAYMENT_TYPES),
  provider: z.enum(MONEY_PROVIDERS),
  providerRef: z.string().nullable(),
  status: z.enum(ORDER_STATUSES),
  amount: z.number().int(),
  currency: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  paidAt: z.string().nullable(),
  sandbox: z.boolean(),
  refundedAmount: z.number().int(),
  refunds: z.array(refundSchema),
})

export const previewSchema = z.object({
  orderId: z.string(),
  currency: z.string(),
  paid: z.number().int(),
  refunded: z.number().int(),
  refundable: z.number().int(),
  amount: z.number().int(),
  diamondsCredited: z.number().int(),
  diamondsDue: z.number().int(),
  diamondsTakenNow: z.number().int(),
  diamondsUncollected: z.number().int(),
  endsPlan: z.boolean(),
})

/** One order: its refunds, and the preview of refunding all that is left (null: not refundable). */
export const orderDetailSchema = z.object({ order: orderSchema, preview: previewSchema.nullable() })

export const refundResultSchema = z.object({ refund: refundSchema, preview: previewSchema, planEnded: z.boolean() })

export const subscriptionSchema = z.object({
  userId: z.string(),
  planId: z.string(),
  billingCycle: z.enum(BILLING_CYCLES),
  provider: z.enum(MONEY_PROVIDERS),
  providerSubscriptionId: z.string().nullable(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  currentPeriodEnd: z.string(),
  cancelAtPeriodEnd: z.boolean(),
  lastEventAt: z.string().nullable(),
  updatedAt: z.string(),
  sandbox: z.boolean(),
})

export const webhookSchema = z.object({
  provider: z.enum(MONEY_PROVIDERS),
  eventId: z.string(),
  type: z.string(),
  receivedAt: z.string(),
  outcome: z.enum(WEBHOOK_OUTCOMES),
  failure: z.string().nullable(),
  duplicates: z.number().int(),
  lastReceivedAt: z.string().nullable(),
})

export const invoiceStateSchema = z.object({
  orderId: z.string(),
  invoiceId: z.string(),
  orderStatus: z.enum(ORDER_STATUSES),
  invoice: z.object({ status: z.string(), amount: z.number(), currency: z.string() }),
})

const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.number().int(), pageSize: z.number().int(), hasMore: z.boolean() })
export const ordersPageSchema = pageOf(orderSchema)
export const subscriptionsPageSchema = pageOf(subscriptionSchema)
export const webhooksPageSchema = pageOf(webhookSchema)

export type MoneyOrder = z.infer<typeof orderSchema>
export type MoneyRefund = z.infer<typeof refundSchema>
export type MoneyPreview = z.infer<typeof previewSchema>
export type MoneyOrderDetail = z.infer<typeof orderDetailSchema>
export type MoneyRefundResult = z.infer<typeof refundResultSchema>
export type MoneySubscription = z.infer<typeof subscriptionSchema>
export type MoneyWebhook = z.infer<typeof webhookSchema>
export type MoneyInvoiceState = z.infer<typeof invoiceStateSchema>
export type MoneyPage<T> = { items: T[]; page: number; pageSize: number; hasMore: boolean }
