import { randomBytes } from 'node:crypto'
import type { Audit } from '#contracts/admin-audit.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { RefundState } from './gateway.ts'
import type { PaymentGateways } from './gateways.ts'
import type { OrderRow, PaymentsRepo } from './payments.repo.ts'
import type { RefundRow, RefundsRepo } from './refunds.repo.ts'

/** The ledger's reason and reference of what a refund takes back: one entry per refund, ever. */
export const REFUND_LEDGER_REASON = 'order-refund'
export const refundReference = (refundId: string) => `refund:${refundId}`

/**
 * What a refund of `amount` takes back (ADR 056): the order's diamonds in proportion to the money
 * given back, counted over all of the order's refunds so their sum is never more than what the order
 * credited and a full refund takes it all: floor(credited × refunded after / paid) − floor(credited ×
 * refunded before / paid).
 */
export function diamondsDue(credited: number, paid: number, refundedBefore: number, amount: number): number {
  if (paid <= 0 || credited <= 0) return 0
  return Math.floor((credited * (refundedBefore + amount)) / paid) - Math.floor((credited * refundedBefore) / paid)
}

type SettleDeps = {
  repo: PaymentsRepo
  refunds: RefundsRepo
  diamonds: DiamondsService
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * A refund's state as the provider reports it (its API answer or any webhook), applied inside the
 * caller's transaction. The row is locked, so the answer and the webhooks queue up; the first to
 * say `succeeded` takes the diamonds back (capped at the balance) and stamps `appliedAt`, and the
 * ledger's unique reference `refund:<id>` would refuse a second entry anyway.
 */
export function createRefundSettlement(deps: SettleDeps) {
  const { repo, refunds, diamonds, log } = deps

  return async function settle(tx: Tx, state: RefundState): Promise<RefundRow | undefined> {
    // Locks in the order a new refund takes them (order, then refund, then balance): no deadlock.
    const known = await refunds.find(tx, state.refundId)
    const order = known && (await repo.lockOrder(tx, known.orderId))
    const row = known && (await refunds.lock(tx, state.refundId))
    if (!row) {
      log({ refundId: state.refundId, providerRefundId: state.providerRefundId }, 'refund not known here: ignored')
      return undefined
    }
    if (row.appliedAt) {
      // Applied before. A refund Stripe reports failed after it succeeded (rare) is logged for an operator.
      if (state.status === 'failed' || state.status === 'canceled')
        log({ refundId: row.id, status: state.status }, 'a refund applied before now failed: adjust by hand')
      return row
    }
    const now = new Date()
    if (state.status === 'succeeded') {
      const taken = row.userId
        ? (await diamonds.takeBackUpTo(row.userId, row.diamondsDue, REFUND_LEDGER_REASON, refundReference(row.id), tx))
            .taken
        : 0
      await refunds.update(tx, row.id, {
        status: 'succeeded',
        providerRefundId: state.providerRefundId,
        diamondsTaken: taken,
        appliedAt: now,
      })
      if (order && (await refunds.committedAmount(tx, order.id, ['succeeded'])) >= order.amount)
        await repo.updateOrder(tx, order.id, { status: 'refunded' })
      log(
        {
          refundId: row.id,
          orderId: row.orderId,
          amount: row.amount,
          diamondsDue: row.diamondsDue,
          diamondsTaken: taken,
        },
        'refund applied',
      )
    } else if (state.status === 'failed' || state.status === 'canceled') {
      await refunds.update(tx, row.id, {
        status: state.status,
        providerRefundId: state.providerRefundId,
        failure: `provider: ${state.status}`,
      })
    } else if (row.providerRefundId !== state.providerRefundId) {
      await refunds.update(tx, row.id, { providerRefundId: state.providerRefundId })
    }
    return refunds.lock(tx, row.id)
  }
}

export type RefundPreview = {
  orderId: string
  currency: string
  paid: number
  /** Refunded or on its way already; what is left can still be refunded. */
  refunded: number
  refundable: number
  amount: number
  /** What the order credited, what this refund takes back by the rule, what the balance allows now. */
  diamondsCredited: number
  diamondsDue: number
  diamondsTakenNow: number
  /** What the balance cannot cover now: not taken (the balance never goes below zero). */
  diamondsUncollected: number
  /** The refund leaves nothing of the order and the plan it bought is held: the plan ends at once. */
  endsPlan: boolean
}

export type RefundResult = {
  refund: RefundRow
  preview: RefundPreview
  /** The plan bought with the order ended (a full refund); false when it was not held or not ended. */
  planEnded: boolean
}

type RefundDeps = SettleDeps & {
  gateways: PaymentGateways
  audit: Audit
}

/**
 * The console's refunds of card payments (ADR 056): a preview of the money and the diamonds, then
 * the refund at the provider, applied through the ledger exactly once.
 */
export function createRefunds(deps: RefundDeps) {
  const { repo, refunds, diamonds, audit, log } = deps
  const settle = createRefundSettlement(deps)

  function refusal(reason: 'not-refundable' | 'exceeds-refundable', refundable: number): AppError {
    return new AppError(
      409,
      'REFUND_NOT_ALLOWED',
      reason === 'exceeds-refundable' ? `At most ${refundable} can be refunded` : 'This order cannot be refunded here',
      { reason, refundable },
    )
  }

  /** The preview, computed with the order locked (the caller's transaction). */
  async function previewIn(tx: Tx, order: OrderRow, amount: number | undefined): Promise<RefundPreview> {
    const refunded = await refunds.committedAmount(tx, order.id)
    const refundable = Math.max(0, order.amount - refunded)
    const gateway = deps.gateways.of(order.provider)
    if (order.status !== 'paid' || !gateway?.refunds || !order.providerRef || refundable === 0)
      throw refusal('not-refundable', refundable)
    const wanted = amount ?? refundable
    if (!Number.isInteger(wanted) || wanted <= 0)
      throw AppError.badRequest('The amount must be a positive whole number of minor units', [
        { path: 'amount', in: 'body' },
      ])
    if (wanted > refundable) throw refusal('exceeds-refundable', refundable)
    const credited =
      order.userId && order.paidAt ? await diamonds.planMonthCredited(order.userId, order.planId, order.paidAt, tx) : 0
    const due = diamondsDue(credited, order.amount, refunded, wanted)
    const balance = order.userId ? await diamondsBalance(tx, order.userId) : 0
    const takenNow = Math.min(due, balance)
    const held = order.userId ? await repo.lockSubscriptionOf(tx, order.userId) : undefined
    const endsPlan =
      wanted === refundable &&
      held !== undefined &&
      held.provider === order.provider &&
      held.planId === order.planId &&
      held.status !== 'canceled' &&
      held.currentPeriodEnd > new Date()
    return {
      orderId: order.id,
      currency: order.currency,
      paid: order.amount,
      refunded,
      refundable,
      amount: wanted,
      diamondsCredited: credited,
      diamondsDue: due,
      diamondsTakenNow: takenNow,
      diamondsUncollected: due - takenNow,
      endsPlan,
    }
  }

  // Inside the transaction: on the embedded database a query outside it would wait for it forever.
  const diamondsBalance = (tx: Tx, userId: string) => diamonds.balanceIn(tx, userId)

  async function lockedOrder(tx: Tx, orderId: string) {
    const order = await repo.lockOrder(tx, orderId)
    if (!order) throw AppError.notFound('Unknown order')
    return order
  }

  /** Ends the plan a full refund took back: at the provider at once, then here (audited). */
  async function endPlan(refund: RefundRow, providerSubscriptionId: string | undefined, actorId: string, note: string) {
    if (!refund.userId) return false
    const userId = refund.userId
    const held = await repo.currentSubscription(userId)
    if (!held || (held.providerSubscriptionId ?? undefined) !== providerSubscriptionId) return false
    const manager = deps.gateways.of(held.provider)?.subscriptions
    if (providerSubscriptionId && held.status !== 'canceled') {
      try {
        if (!manager?.cancelNow) throw new Error('the provider cannot end a subscription at once')
        await manager.cancelNow(providerSubscriptionId, `refund:${refund.id}:cancel`)
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        log({ refundId: refund.id, providerSubscriptionId, error: reason }, 'the refunded plan was not ended')
        await repo.transaction((tx) =>
          audit(tx, {
            actorId,
            action: 'subscription.cancel.failed',
            targetType: 'subscription',
            targetId: userId,
            note,
            details: { refundId: refund.id, providerSubscriptionId, reason },
          }),
        )
        return false
      }
    }
    const now = new Date()
    await repo.transaction(async (tx) => {
      const current = await repo.lockSubscriptionOf(tx, userId)
      if (!current || current.providerSubscriptionId !== held.providerSubscriptionId) return
      await repo.updateSubscription(tx, userId, {
        status: 'canceled',
        cancelAtPeriodEnd: true,
        currentPeriodEnd: current.currentPeriodEnd < now ? current.currentPeriodEnd : now,
        lastEventAt: now,
      })
      await audit(tx, {
        actorId,
        action: 'subscription.cancel',
        targetType: 'subscription',
        targetId: userId,
        note,
        details: { when: 'now', because: 'full-refund', refundId: refund.id, providerSubscriptionId },
      })
    })
    return true
  }

  return {
    settle,

    /** What refunding `amount` (default: all that is left) would do; changes nothing. */
    async preview(orderId: string, amount?: number): Promise<RefundPreview> {
      return repo.transaction(async (tx) => previewIn(tx, await lockedOrder(tx, orderId), amount))
    },

    /**
     * Refunds `amount` of a paid card order (default: all that is left). The refund row and the
     * audited intent commit before the provider is called; the provider's answer and its webhooks
     * then apply it once, in whichever order they come. A refused refund is recorded as failed; an
     * unanswered one stays pending for the webhook to settle (its amount stays reserved).
     */
    async refund(input: { orderId: string; amount?: number; actorId: string; note: string }): Promise<RefundResult> {
      const refundId = `rf_${randomBytes(16).toString('base64url')}`
      const { order, preview } = await repo.transaction(async (tx) => {
        const order = await lockedOrder(tx, input.orderId)
        const preview = await previewIn(tx, order, input.amount)
        await refunds.insert(tx, {
          id: refundId,
          orderId: order.id,
          userId: order.userId,
          amount: preview.amount,
          currency: order.currency,
          diamondsDue: preview.diamondsDue,
          endsPlan: preview.endsPlan,
          actorId: input.actorId,
          note: input.note,
        })
        await audit(tx, {
          actorId: input.actorId,
          action: 'order.refund.requested',
          targetType: 'order',
          targetId: order.id,
          note: input.note,
          details: { refundId, ...preview },
        })
        return { order, preview }
      })
      const gateway = deps.gateways.of(order.provider)
      const refunder = gateway?.refunds
      if (!refunder || !order.providerRef) throw refusal('not-refundable', preview.refundable)
      const providerRef = order.providerRef
      let answer: Awaited<ReturnType<typeof refunder.refund>>
      try {
        answer = await refunder.refund({ refundId, orderId: order.id, providerRef, amount: preview.amount })
      } catch (error) {
        const failure = refunder.failure(error)
        const refused = failure.status < 500
        const reason = error instanceof Error ? error.message : String(error)
        log({ refundId, orderId: order.id, error: reason }, refused ? 'refund refused' : 'refund not answered')
        await repo.transaction(async (tx) => {
          const row = await refunds.lock(tx, refundId)
          // Refused: nothing was refunded. Not answered: the webhook may still say it succeeded.
          if (refused && row && !row.appliedAt)
            await refunds.update(tx, refundId, { status: 'failed', failure: reason })
          await audit(tx, {
            actorId: input.actorId,
            action: 'order.refund.failed',
            targetType: 'order',
            targetId: order.id,
            note: input.note,
            details: { refundId, outcome: refused ? 'refused' : 'unanswered', reason },
          })
        })
        throw failure
      }
      const refund = await repo.transaction(async (tx) => {
        const row = await settle(tx, answer)
        await audit(tx, {
          actorId: input.actorId,
          action: 'order.refund',
          targetType: 'order',
          targetId: order.id,
          note: input.note,
          details: {
            refundId,
            providerRefundId: answer.providerRefundId,
            status: row?.status ?? answer.status,
            amount: preview.amount,
            diamondsDue: preview.diamondsDue,
            diamondsTaken: row?.diamondsTaken ?? null,
          },
        })
        return row
      })
      if (!refund) throw new Error(`refund ${refundId} vanished`)
      const planEnded =
        preview.endsPlan && refund.status === 'succeeded'
          ? await endPlan(refund, answer.providerSubscriptionId, input.actorId, input.note)
          : false
      return { refund, preview, planEnded }
    },

    /**
     * Asks the provider again for a refund left `pending` because its call was not answered: the
     * same id and idempotency key, so it is one refund at the provider whatever happened the first
     * time; applied once like any other report.
     */
    async retry(input: { refundId: string; actorId: string; note: string }): Promise<RefundRow> {
      const pending = await repo.transaction(async (tx) => {
        const row = await refunds.lock(tx, input.refundId)
        if (!row) throw AppError.notFound('Unknown refund')
        if (row.status !== 'pending') return { row, order: undefined }
        const order = await repo.findOrder(row.orderId, tx)
        await audit(tx, {
          actorId: input.actorId,
          action: 'order.refund.retried',
          targetType: 'order',
          targetId: row.orderId,
          note: input.note,
          details: { refundId: row.id, amount: row.amount },
        })
        return { row, order }
      })
      const { row, order } = pending
      if (!order) return row
      const refunder = deps.gateways.of(order.provider)?.refunds
      if (!refunder || !order.providerRef) throw refusal('not-refundable', 0)
      let answer: Awaited<ReturnType<typeof refunder.refund>>
      try {
        answer = await refunder.refund({
          refundId: row.id,
          orderId: order.id,
          providerRef: order.providerRef,
          amount: row.amount,
        })
      } catch (error) {
        log({ refundId: row.id, error: error instanceof Error ? error.message : String(error) }, 'refund retry failed')
        throw refunder.failure(error)
      }
      return repo.transaction(async (tx) => {
        const settled = await settle(tx, answer)
        await audit(tx, {
          actorId: input.actorId,
          action: 'order.refund',
          targetType: 'order',
          targetId: order.id,
          note: input.note,
          details: {
            refundId: row.id,
            providerRefundId: answer.providerRefundId,
            status: settled?.status ?? answer.status,
            diamondsTaken: settled?.diamondsTaken ?? null,
          },
        })
        if (!settled) throw new Error(`refund ${row.id} vanished`)
        return settled
      })
    },

    /** An order's refunds, oldest first. */
    ofOrder: (orderId: string) => refunds.ofOrders([orderId]),
  }
}

export type Refunds = ReturnType<typeof createRefunds>
