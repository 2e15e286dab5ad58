import { and, asc, desc, eq, ne, type SQL, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import {
  orders,
  type PaymentEventOutcome,
  type PaymentProvider,
  paymentEvents,
  type RefundStatus,
  subscriptions,
} from '#db/schema/payments.ts'

export type { PaymentEventOutcome, PaymentProvider, RefundStatus }

import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import { subscriptionHeld } from '#server/modules/entitlements/entitlements.repo.ts'

export type OrderRow = typeof orders.$inferSelect
export type PaymentEventRow = typeof paymentEvents.$inferSelect
/** `limit` rows from `offset`; the repo reads one more, so the caller knows whether more follow. */
export type Page = { limit: number; offset: number }
export type OrderFilter = {
  userId?: string | undefined
  provider?: PaymentProvider | undefined
  status?: OrderRow['status'] | undefined
  /** true: only the sandbox's orders; false: only real ones. */
  sandbox?: boolean | undefined
}
export type SubscriptionFilter = {
  userId?: string | undefined
  provider?: PaymentProvider | undefined
  status?: SubscriptionRow['status'] | undefined
}
export type EventFilter = {
  provider?: PaymentProvider | undefined
  outcome?: PaymentEventOutcome | undefined
  duplicatesOnly?: boolean | undefined
}
export type NewOrder = typeof orders.$inferInsert
export type SubscriptionRow = typeof subscriptions.$inferSelect

export function createPaymentsRepo(db: Db) {
  return {
    transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(work)
    },

    async insertOrder(order: NewOrder) {
      await db.insert(orders).values(order)
    },

    async setProviderRef(orderId: string, providerRef: string) {
      await db.update(orders).set({ providerRef, updatedAt: new Date() }).where(eq(orders.id, orderId))
    },

    async findOrder(orderId: string, tx: Tx | Db = db): Promise<OrderRow | undefined> {
      const [row] = await tx.select().from(orders).where(eq(orders.id, orderId))
      return row
    },

    /** The order, locked until the transaction ends, so two deliveries of one event queue up. */
    async lockOrder(tx: Tx, orderId: string): Promise<OrderRow | undefined> {
      const [row] = await tx.select().from(orders).where(eq(orders.id, orderId)).for('update')
      return row
    },

    async updateOrder(tx: Tx, orderId: string, values: Partial<Pick<OrderRow, 'status' | 'paidAt' | 'providerRef'>>) {
      await tx
        .update(orders)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(orders.id, orderId))
    },

    /** The user's orders still waiting for a payment, oldest first: the checkouts left open. */
    async pendingOrdersOf(userId: string): Promise<OrderRow[]> {
      return db
        .select()
        .from(orders)
        .where(and(eq(orders.userId, userId), eq(orders.status, 'pending')))
        .orderBy(asc(orders.createdAt))
    },

    /** Closes an order that is still pending; a paid one stays paid. */
    async closeOrder(orderId: string, status: 'canceled') {
      await db
        .update(orders)
        .set({ status, updatedAt: new Date() })
        .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
    },

    /**
     * False when this provider event was handled before (the caller then does nothing; the replay
     * is counted). An event whose handling failed before is handled again (ADR 056).
     */
    async recordEvent(tx: Tx, provider: PaymentProvider, eventId: string, type: string): Promise<boolean> {
      const inserted = await tx
        .insert(paymentEvents)
        .values({ provider, eventId, type })
        .onConflictDoNothing()
        .returning({ eventId: paymentEvents.eventId })
      if (inserted.length > 0) return true
      const key = and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, eventId))
      const [row] = await tx.select().from(paymentEvents).where(key).for('update')
      const now = new Date()
      if (row?.outcome === 'failed') {
        await tx.update(paymentEvents).set({ outcome: 'applied', failure: null, lastReceivedAt: now }).where(key)
        return true
      }
      await tx
        .update(paymentEvents)
        .set({ duplicates: sql`${paymentEvents.duplicates} + 1`, lastReceivedAt: now })
        .where(key)
      return false
    },

    /** What became of an event recorded in this transaction. */
    async setEventOutcome(tx: Tx, provider: PaymentProvider, eventId: string, outcome: PaymentEventOutcome) {
      await tx
        .update(paymentEvents)
        .set({ outcome })
        .where(and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, eventId)))
    },

    /**
     * An event whose handling threw (and was rolled back): recorded as failed with why, outside
     * that transaction, so the list shows it; the provider's retry is handled as new.
     */
    async recordEventFailure(provider: PaymentProvider, eventId: string, type: string, failure: string) {
      const now = new Date()
      await db
        .insert(paymentEvents)
        .values({ provider, eventId, type, outcome: 'failed', failure, lastReceivedAt: now })
        .onConflictDoUpdate({
          target: [paymentEvents.provider, paymentEvents.eventId],
          set: { outcome: 'failed', failure, lastReceivedAt: now },
          // An event applied meanwhile (a parallel delivery) stays applied.
          setWhere: eq(paymentEvents.outcome, 'failed'),
        })
    },

    /** Provider events newest first, for the console (ADR 056). */
    async listEvents(filter: EventFilter, page: Page) {
      const where = and(
        filter.provider ? eq(paymentEvents.provider, filter.provider) : undefined,
        filter.outcome ? eq(paymentEvents.outcome, filter.outcome) : undefined,
        filter.duplicatesOnly ? ne(paymentEvents.duplicates, 0) : undefined,
      )
      return db
        .select()
        .from(paymentEvents)
        .where(where)
        .orderBy(desc(paymentEvents.receivedAt), desc(paymentEvents.eventId))
        .limit(page.limit + 1)
        .offset(page.offset)
    },

    /** Orders newest first, for the console (ADR 056). */
    async listOrders(filter: OrderFilter, page: Page): Promise<OrderRow[]> {
      const conditions: (SQL | undefined)[] = [
        filter.userId ? eq(orders.userId, filter.userId) : undefined,
        filter.provider ? eq(orders.provider, filter.provider) : undefined,
        filter.status ? eq(orders.status, filter.status) : undefined,
        filter.sandbox === true ? eq(orders.provider, 'sandbox') : undefined,
        filter.sandbox === false ? ne(orders.provider, 'sandbox') : undefined,
      ]
      return db
        .select()
        .from(orders)
        .where(and(...conditions))
        .orderBy(desc(orders.createdAt), desc(orders.id))
        .limit(page.limit + 1)
        .offset(page.offset)
    },

    /** Subscriptions most recently changed first, for the console (ADR 056). */
    async listSubscriptions(filter: SubscriptionFilter, page: Page): Promise<SubscriptionRow[]> {
      return db
        .select()
        .from(subscriptions)
        .where(
          and(
            filter.userId ? eq(subscriptions.userId, filter.userId) : undefined,
            filter.provider ? eq(subscriptions.provider, filter.provider) : undefined,
            filter.status ? eq(subscriptions.status, filter.status) : undefined,
          ),
        )
        .orderBy(desc(subscriptions.updatedAt), desc(subscriptions.userId))
        .limit(page.limit + 1)
        .offset(page.offset)
    },

    async lockSubscriptionOf(tx: Tx, userId: string): Promise<SubscriptionRow | undefined> {
      const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.userId, userId)).for('update')
      return row
    },

    async lockSubscriptionByProviderId(tx: Tx, providerSubscriptionId: string): Promise<SubscriptionRow | undefined> {
      const [row] = await tx
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.providerSubscriptionId, providerSubscriptionId))
        .for('update')
      return row
    },

    async upsertSubscription(tx: Tx, row: Omit<SubscriptionRow, 'updatedAt'>) {
      const values = { ...row, updatedAt: new Date() }
      await tx.insert(subscriptions).values(values).onConflictDoUpdate({ target: subscriptions.userId, set: values })
    },

    async updateSubscription(
      tx: Tx,
      userId: string,
      values: Partial<
        Pick<
          SubscriptionRow,
          'planId' | 'billingCycle' | 'status' | 'currentPeriodEnd' | 'cancelAtPeriodEnd' | 'lastEventAt'
        >
      >,
    ) {
      await tx
        .update(subscriptions)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(subscriptions.userId, userId))
    },

    /**
     * The subscription of the plan a user holds now, if any beyond the free one: the rule of which
     * plan that is belongs to entitlements (`subscriptionHeld`).
     */
    async currentSubscription(userId: string, now = new Date()): Promise<SubscriptionRow | undefined> {
      const [row] = await db
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, userId), subscriptionHeld(now)))
      return row
    },
  }
}

export type PaymentsRepo = ReturnType<typeof createPaymentsRepo>
