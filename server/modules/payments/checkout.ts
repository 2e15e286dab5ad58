import { randomBytes } from 'node:crypto'
import type { Locale } from '#contracts/locales.ts'
import type { PaymentStart, PaymentType } from '#contracts/payments.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import { type CheckoutGateway, sitePageUrl } from './gateway.ts'
import { notConfigured } from './gateways.ts'
import type { OrderRow } from './payments.repo.ts'
import type { PaymentsDeps } from './payments.service.ts'
import { planName } from './subscriptions.ts'

type CheckoutDeps = Pick<PaymentsDeps, 'repo' | 'plans' | 'gateways' | 'publicUrl' | 'log'>

function newOrderId(): string {
  return `ord_${randomBytes(16).toString('base64url')}`
}

/**
 * A new checkout: the order, written before the buyer leaves for the provider's page, and that page.
 * One checkout is open at a time (ADR 025): the user's other open ones are closed first.
 */
export function createCheckouts(deps: CheckoutDeps) {
  const { repo, log } = deps

  /**
   * One checkout open at a time (ADR 025): before a new one starts, the user's open card checkouts
   * are closed at their provider (Stripe expires them), and a new card checkout also closes open
   * crypto invoices (marked invalid at BTCPay), so two tabs cannot both be paid. Two crypto invoices
   * may stay open side by side: paying both extends the plan twice and bills nothing twice. A
   * checkout paid meanwhile stops the new start with 409 PAYMENT_IN_PROGRESS (the plan may just have
   * been bought), an outage with 503.
   */
  async function closeOpenCheckouts(userId: string, starting: PaymentType) {
    for (const order of await repo.pendingOrdersOf(userId)) {
      if (starting === 'crypto' && order.paymentType === 'crypto') continue
      if ((await closeAtProvider(order)) === 'paid') {
        throw new AppError(
          409,
          'PAYMENT_IN_PROGRESS',
          'A checkout opened earlier was just paid; it is being confirmed',
          {
            orderId: order.id,
          },
        )
      }
      await repo.closeOrder(order.id, 'canceled')
      log({ orderId: order.id, userId, provider: order.provider }, 'open checkout closed for a new one')
    }
  }

  /** Closes an order's checkout at its provider: `paid` when it was paid before it could be closed. */
  async function closeAtProvider(order: OrderRow): Promise<'closed' | 'paid'> {
    // Never reached the provider (its start failed, or the sandbox): there is no page to pay.
    if (!order.providerRef) return 'closed'
    const unavailable = () =>
      new AppError(503, 'SERVICE_UNAVAILABLE', 'An open checkout could not be closed; try again')
    try {
      const gateway = deps.gateways.of(order.provider)
      if (!gateway) throw unavailable()
      return await gateway.closeCheckout(order.providerRef)
    } catch (error) {
      log(
        { orderId: order.id, provider: order.provider, error: error instanceof Error ? error.message : String(error) },
        'an open checkout could not be closed; nothing was started',
      )
      throw error instanceof AppError ? error : unavailable()
    }
  }

  return {
    /** The plan on sale with this id: a 400 for an unknown or the free plan. */
    async planToBuy(planId: string): Promise<Plan> {
      const plan = (await deps.plans.listPlans()).find((p) => p.planId === planId)
      if (!plan) throw AppError.badRequest('Unknown plan', { field: 'planId' })
      if (plan.free) throw AppError.badRequest('The free plan is not for sale', { field: 'planId' })
      return plan
    },

    /** Who takes this payment type: a 503 when no provider is configured for it and the sandbox is off. */
    gatewayFor(type: PaymentType): CheckoutGateway {
      const gateway = deps.gateways.forType(type)
      if (!gateway) throw new AppError(503, 'SERVICE_UNAVAILABLE', notConfigured(type))
      return gateway
    },

    /** Closes the other open checkouts, writes the order, and opens the provider's checkout for it. */
    async open(
      gateway: CheckoutGateway,
      type: PaymentType,
      request: { userId: string; plan: Plan; billingCycle: BillingCycle; locale: Locale },
    ): Promise<PaymentStart> {
      const { userId, plan, billingCycle, locale } = request
      await closeOpenCheckouts(userId, type)
      const order: OrderRow = {
        id: newOrderId(),
        userId,
        planId: plan.planId,
        billingCycle,
        paymentType: type,
        provider: gateway.provider,
        providerRef: null,
        status: 'pending',
        amount: billingCycle === 'yearly' ? plan.priceYearly : plan.priceMonthly,
        currency: plan.currency,
        createdAt: new Date(),
        updatedAt: new Date(),
        paidAt: null,
      }
      await repo.insertOrder(order)
      const checkout = await gateway.startCheckout({
        orderId: order.id,
        userId,
        planId: plan.planId,
        planName: planName(plan),
        billingCycle,
        amount: order.amount,
        currency: order.currency,
        locale,
        successUrl: sitePageUrl(deps.publicUrl, locale, `/subscribe/success?orderId=${order.id}`),
        cancelUrl: sitePageUrl(deps.publicUrl, locale, '/subscribe'),
      })
      if (checkout.providerRef) await repo.setProviderRef(order.id, checkout.providerRef)
      return { orderId: order.id, paymentUrl: checkout.paymentUrl }
    },
  }
}
