import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { orderRefunds } from '#db/schema/payments.ts'

export type RefundRow = typeof orderRefunds.$inferSelect
export type NewRefund = typeof orderRefunds.$inferInsert

/** The refunds an operator asked for (ADR 056): this repo owns `order_refunds`. */
export function createRefundsRepo(db: Db) {
  return {
    async insert(tx: Tx, row: NewRefund) {
      await tx.insert(orderRefunds).values(row)
    },

    async find(tx: Tx, refundId: string): Promise<RefundRow | undefined> {
      const [row] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, refundId))
      return row
    },

    /** The refund, locked until the transaction ends: its answer and its webhooks queue up. */
    async lock(tx: Tx, refundId: string): Promise<RefundRow | undefined> {
      const [row] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, refundId)).for('update')
      return row
    },

    async update(
      tx: Tx,
      refundId: string,
      values: Partial<
        Pick<RefundRow, 'status' | 'providerRefundId' | 'diamondsTaken' | 'appliedAt' | 'failure' | 'endsPlan'>
      >,
    ) {
      await tx
        .update(orderRefunds)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(orderRefunds.id, refundId))
    },

    /** An order's refunds, oldest first. */
    async ofOrders(orderIds: string[], tx: Tx | Db = db): Promise<RefundRow[]> {
      if (orderIds.length === 0) return []
      return tx
        .select()
        .from(orderRefunds)
        .where(inArray(orderRefunds.orderId, orderIds))
        .orderBy(asc(orderRefunds.createdAt))
    },

    /**
     * What of an order is refunded or on its way (pending or succeeded): what a new refund can no
     * longer take. Call with the order locked, so two refunds of one order queue up.
     */
    async committedAmount(tx: Tx, orderId: string, statuses: ('pending' | 'succeeded')[] = ['pending', 'succeeded']) {
      const [row] = await tx
        .select({ sum: sql<number>`coalesce(sum(${orderRefunds.amount}), 0)::int` })
        .from(orderRefunds)
        .where(and(eq(orderRefunds.orderId, orderId), inArray(orderRefunds.status, statuses)))
      return Number(row?.sum ?? 0)
    },
  }
}

export type RefundsRepo = ReturnType<typeof createRefundsRepo>
