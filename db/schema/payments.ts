import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import type { OrderStatus, PaymentType } from '#contracts/payments.ts'
import type { BillingCycle } from '#contracts/plans.ts'
import { plans } from './diamonds.ts'
import { users } from './users.ts'

export type PaymentProvider = 'stripe' | 'btcpay' | 'sandbox'

/**
 * One attempt to buy a plan. Created before the user is sent to the provider; the provider's
 * webhook (or the sandbox) moves it out of `pending`. `providerRef` is the Checkout Session or the
 * BTCPay invoice.
 */
export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    /** Null once the buyer deleted their account: the order is kept for accounting (ADR 015). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id),
    billingCycle: text('billing_cycle').$type<BillingCycle>().notNull(),
    paymentType: text('payment_type').$type<PaymentType>().notNull(),
    provider: text('provider').$type<PaymentProvider>().notNull(),
    providerRef: text('provider_ref'),
    status: text('status').$type<OrderStatus>().notNull().default('pending'),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('orders_provider_ref_key').on(table.provider, table.providerRef),
    index('orders_user_idx').on(table.userId, table.createdAt.desc()),
  ],
)

/**
 * The plan a user holds beyond the free one, one row per user. The plan counts while
 * `currentPeriodEnd` is in the future, whatever the status says: a cancelled or past-due plan keeps
 * what was paid for until then.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id),
    billingCycle: text('billing_cycle').$type<BillingCycle>().notNull(),
    provider: text('provider').$type<PaymentProvider>().notNull(),
    /**
     * Stripe's subscription id (`sandbox_sub_...` for a sandbox card plan, which stands in for one);
     * null for crypto plans, which do not renew.
     */
    providerSubscriptionId: text('provider_subscription_id'),
    /** `canceled`: the provider ended the subscription (final). A plan set to end is still `active`. */
    status: text('status').$type<'active' | 'past_due' | 'canceled'>().notNull(),
    currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
    /** The user (or the provider) cancelled: the plan ends at `currentPeriodEnd` instead of renewing (ADR 016). */
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    /** Time of the newest provider event applied, so an older event arriving late changes nothing. */
    lastEventAt: timestamp('last_event_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('subscriptions_provider_subscription_key').on(table.providerSubscriptionId)],
)

/**
 * What became of a provider event (ADR 056): `applied` (its outcome was applied), `ignored` (an
 * event we do not act on), `failed` (applying it threw; rolled back, `failure` says why, and the
 * provider's retry is handled as new). A replay is counted in `duplicates`.
 */
export type PaymentEventOutcome = 'applied' | 'ignored' | 'failed'

/** Provider events already handled: a replayed webhook is recognised and answered without effect. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    provider: text('provider').$type<PaymentProvider>().notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    outcome: text('outcome').$type<PaymentEventOutcome>().notNull().default('applied'),
    failure: text('failure'),
    /** Deliveries of the event after the one that was handled (replays), and when the last came. */
    duplicates: integer('duplicates').notNull().default(0),
    lastReceivedAt: timestamp('last_received_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('payment_events_key').on(table.provider, table.eventId),
    index('payment_events_received_idx').on(table.receivedAt.desc()),
  ],
)

export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled'

/**
 * A refund an operator asked for (ADR 056). Written and committed before the provider is called:
 * its id is the idempotency key at the provider and travels in the refund's metadata, so the API's
 * answer and every webhook about it find this row, and its diamonds are taken back once (the
 * ledger's reference `refund:<id>`, and `appliedAt`).
 */
export const orderRefunds = pgTable(
  'order_refunds',
  {
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** The buyer when the refund was asked for; null once they deleted their account. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** In minor units of the order's currency. */
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<RefundStatus>().notNull().default('pending'),
    providerRefundId: text('provider_refund_id'),
    /** What the refund takes back by the rule of ADR 056, and what the balance allowed. */
    diamondsDue: integer('diamonds_due').notNull(),
    diamondsTaken: integer('diamonds_taken'),
    /** The plan bought with the order ends at once (a full refund of the order that started it). */
    endsPlan: boolean('ends_plan').notNull().default(false),
    actorId: text('actor_id').notNull(),
    note: text('note').notNull(),
    failure: text('failure'),
    appliedAt: timestamp('applied_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('order_refunds_order_idx').on(table.orderId, table.createdAt),
    uniqueIndex('order_refunds_provider_refund_key').on(table.providerRefundId),
  ],
)
