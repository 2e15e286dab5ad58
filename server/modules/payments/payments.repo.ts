import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { orders, type PaymentProvider, paymentEvents, subscriptions } from '#db/schema/payments.ts'

export type { PaymentProvider }

import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import { subscriptionHeld } from '#server/modules/entitlements/entitlements.repo.ts'

export type OrderRow = typeof orders.$inferSelect
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

    /** False when this provider event was handled before (the caller then does nothing). */
    async recordEvent(tx: Tx, provider: PaymentProvider, eventId: string, type: string): Promise<boolean> {
      const inserted = await tx
        .insert(paymentEvents)
        .values({ provider, eventId, type })
        .onConflictDoNothing()
        .returning({ eventId: paymentEvents.eventId })
      return inserted.length > 0
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
