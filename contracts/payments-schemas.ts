import { z } from 'zod'
import { BILLING_CYCLES } from './plans.ts'

// zod schemas of the plan the signed-in user holds and its renewal (docs/decisions/016-cancel-plan.md).

export const subscriptionView = z.object({
  planId: z.string(),
  billingCycle: z.enum(BILLING_CYCLES),
  /** `canceled`: the provider ended the subscription. A plan set to end is `active` or `past_due`. */
  status: z.enum(['active', 'past_due', 'canceled']),
  /** When the paid period ends: the next charge if `renews`, otherwise the end of the plan. */
  currentPeriodEnd: z.string(),
  /** True while the provider will charge again at `currentPeriodEnd` (a card plan not cancelled). */
  renews: z.boolean(),
  /** True when the renewal was cancelled: `POST /api/subscription/resume` undoes it until the period ends. */
  cancelAtPeriodEnd: z.boolean(),
})
export type SubscriptionView = z.infer<typeof subscriptionView>

export const currentSubscriptionResponse = z.object({ subscription: subscriptionView.nullable() })
