import type { BillingCycle } from './plans.ts'

/** How a plan is paid: a card subscription (Stripe) or a one-off crypto payment (BTCPay). */
export const PAYMENT_TYPES = ['card', 'crypto'] as const
export type PaymentType = (typeof PAYMENT_TYPES)[number]

/**
 * The life of an order, as `POST /api/payment/status` reports it. `refunded`: paid while another
 * plan already ran (two checkouts open side by side), so the payment was given back (ADR 025).
 */
export const ORDER_STATUSES = ['pending', 'paid', 'failed', 'expired', 'canceled', 'refunded'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

/** What `POST /api/subscription` and `POST /api/payment` answer. */
export type PaymentStart = { orderId: string; paymentUrl: string }

/** The public status of an order: nothing about who placed it. */
export type PaymentStatus = { orderId: string; status: OrderStatus; planId: string; billingCycle: BillingCycle }

/** Order ids are random and unguessable, because their status is readable without a login. */
export const ORDER_ID_PATTERN = /^ord_[A-Za-z0-9_-]{22}$/
