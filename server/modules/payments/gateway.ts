import { DEFAULT_LOCALE, type Locale } from '#contracts/locales.ts'
import type { OrderStatus, PaymentType } from '#contracts/payments.ts'
import type { BillingCycle } from '#contracts/plans.ts'
import type { Config } from '#server/config.ts'
import type { AppError } from '#server/lib/errors.ts'
import type { PaymentProvider, RefundStatus } from './payments.repo.ts'

// The seam between the payments service and the companies that take the money (README.md in this
// folder). The service speaks only these types; each provider file turns them into its own API
// calls and its own webhooks back into a `PaymentOutcome`.

/** What a provider told us happened to an order or a subscription, in provider-neutral terms. */
export type PaymentOutcome =
  | { kind: 'order-paid'; orderId: string; providerSubscriptionId?: string; amount?: number; currency?: string }
  | { kind: 'order-closed'; orderId: string; status: Exclude<OrderStatus, 'pending' | 'paid'> }
  | { kind: 'renewal-paid'; providerSubscriptionId: string; periodEnd: Date }
  | { kind: 'renewal-failed'; providerSubscriptionId: string }
  | { kind: 'subscription-ended'; providerSubscriptionId: string; endedAt: Date }
  | {
      kind: 'subscription-changed'
      providerSubscriptionId: string
      cancelAtPeriodEnd: boolean
      /** Stripe's `cancel_at`: a set end time, which also stops the renewal when it is the period end. */
      cancelAt?: Date | undefined
      status: string
      /** The plan and cycle the subscription now bills, and its period end (ADR 025); absent when unknown. */
      planId?: string | undefined
      billingCycle?: BillingCycle | undefined
      periodEnd?: Date | undefined
    }
  /** Refunds the provider reports as they now stand (ADR 056); ours carry our refund id. */
  | { kind: 'refunds-changed'; refunds: RefundState[] }

/** A refund at the provider: `refundId` is ours (its metadata), `providerRefundId` the provider's. */
export type RefundState = { refundId: string; providerRefundId: string; status: RefundStatus; amount: number }

/** A refund asked of the provider for one paid order (ADR 056). */
export type RefundRequest = {
  /** Ours: the idempotency key and the refund's metadata, so every answer about it finds its row. */
  refundId: string
  orderId: string
  /** The order's checkout at the provider (Stripe's Checkout Session). */
  providerRef: string
  /** In minor units of the order's currency. */
  amount: number
}

/** What a provider that can give card payments back does (ADR 056). */
export type CardRefunds = {
  /**
   * Refunds `amount` of the order's payment; answers the refund as the provider now holds it and
   * the subscription the order's checkout created (if any). Throws when the provider refuses or
   * cannot be reached; `failure` says which.
   */
  refund(request: RefundRequest): Promise<RefundState & { providerSubscriptionId?: string | undefined }>
  failure(error: AppError | unknown): AppError
}

export type SubscriptionChanged = Extract<PaymentOutcome, { kind: 'subscription-changed' }>

/** One provider event: `id` is the provider's own id for it, the key that makes a replay harmless. */
export type ProviderEvent = { id: string; type: string; at: Date }

/** A verified webhook delivery: the event, and what it means (undefined for events we ignore). */
export type WebhookDelivery = { event: ProviderEvent; outcome: PaymentOutcome | undefined }

export type CheckoutRequest = {
  orderId: string
  userId: string
  planId: string
  /** The plan's name as the buyer reads it on the provider's page. */
  planName: string
  billingCycle: BillingCycle
  /** In minor units of `currency` (999 USD is 9.99 dollars). */
  amount: number
  currency: string
  /** The language of the page the buyer came from, which `successUrl` and `cancelUrl` keep. */
  locale: Locale
  successUrl: string
  cancelUrl: string
}

/** A checkout opened at the provider: the page the buyer pays on, and the provider's id for it. */
export type Checkout = { providerRef: string | null; paymentUrl: string }

export type PlanChangeRequest = {
  providerSubscriptionId: string
  planId: string
  planName: string
  billingCycle: BillingCycle
  amount: number
  currency: string
  /** One key per intended change: a doubled click is one change at the provider. */
  idempotencyKey: string
  /** The subscription's cycle and period end before the change. */
  current: { billingCycle: BillingCycle; currentPeriodEnd: Date }
}

/**
 * What a provider whose plans renew by themselves (card subscriptions) does for the plans it bills.
 * A call that fails throws; the service logs it and answers with `failure(error)`.
 */
export type SubscriptionManager = {
  /** Stops (`renew` false) or restores the renewal at the end of the paid period. */
  setRenewal(providerSubscriptionId: string, renew: boolean, idempotencyKey: string): Promise<void>
  /**
   * Moves a running subscription to another plan or cycle (ADR 025), the difference charged at
   * once; answers the subscription as it now is. A declined charge throws a 402 PAYMENT_DECLINED
   * AppError and leaves the subscription as it was.
   */
  changePlan(request: PlanChangeRequest): Promise<SubscriptionChanged>
  /**
   * Ends a second subscription a race let through and refunds its payment in full (ADR 025); run
   * by a durable job, so safe to run again. Absent where there is no money to give back.
   */
  cancelAndRefund?(providerSubscriptionId: string, orderId: string): Promise<{ refunded: number }>
  /** Ends the subscription at once, without proration credit (an operator's cancel, ADR 056). */
  cancelNow?(providerSubscriptionId: string, idempotencyKey: string): Promise<void>
  /** What a failed call means for the user: refused (409) or unreachable (503). */
  failure(error: unknown): AppError
}

/** What the payments service asks of a provider: the checkout, and for card plans the subscription. */
export type CheckoutGateway = {
  provider: PaymentProvider
  /** How a buyer pays through it: the start route of that type (card, crypto) opens its checkouts. */
  paymentTypes: readonly PaymentType[]
  startCheckout(request: CheckoutRequest): Promise<Checkout>
  /**
   * Closes an open checkout so it can no longer be paid (one checkout open at a time, ADR 025):
   * `paid` when it was paid before it could be closed. Throws when the provider cannot be reached
   * or leaves it open.
   */
  closeCheckout(providerRef: string): Promise<'closed' | 'paid'>
  subscriptions?: SubscriptionManager
  /** Card refunds, where the provider can give money back by API (Stripe). */
  refunds?: CardRefunds
  /** An order's checkout as the provider holds it now (BTCPay's invoice): its status and amount. */
  checkoutState?(providerRef: string): Promise<{ status: string; amount: number; currency: string }>
}

/** A real provider: its results arrive as signed webhooks at `POST /api/webhooks/<provider>`. */
export type PaymentGateway = CheckoutGateway & {
  /**
   * Checks the delivery's signature over the exact raw body and turns it into a provider-neutral
   * outcome. A delivery that is not the provider's (bad signature, another store, no event id)
   * throws a 400 AppError and changes nothing.
   */
  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<WebhookDelivery>
}

/**
 * A provider the code knows, configured or not: `create` answers its gateway when the
 * configuration holds its keys, undefined otherwise (its webhook URL then answers 404).
 */
export type ProviderDefinition = {
  provider: PaymentProvider
  /** Its name for people (the API docs). */
  name: string
  paymentTypes: readonly PaymentType[]
  create(config: Config): PaymentGateway | undefined
}

/** A header's one value: a repeated header counts as absent. */
export const headerValue = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined

/** A page of the site in the buyer's language (`/fr/subscribe`; `/subscribe` in the default one). */
export const sitePageUrl = (publicUrl: string, locale: Locale, path: string) =>
  `${publicUrl}${locale === DEFAULT_LOCALE ? '' : `/${locale}`}${path}`
