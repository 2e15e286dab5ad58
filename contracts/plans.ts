export const BILLING_CYCLES = ['monthly', 'yearly'] as const
export type BillingCycle = (typeof BILLING_CYCLES)[number]

/** Diamonds every new account starts with. */
export const SIGNUP_GRANT_DIAMONDS = 50

export type Plan = {
  planId: string
  free: boolean
  priceMonthly: number
  priceYearly: number
  currency: string
  /** Whole percent saved by paying yearly instead of 12 months; 0 when none. */
  yearlySavingsPercent: number
  bestValue: boolean
  diamondsPerMonth: number
  memoryK: number
  unlimitedFreeModels: boolean
  premiumModels: boolean
}

export function yearlySavingsPercent(priceMonthly: number, priceYearly: number): number {
  if (priceMonthly <= 0) return 0
  const saved = 1 - priceYearly / (priceMonthly * 12)
  return saved > 0 ? Math.round(saved * 100) : 0
}

/**
 * How a plan and cycle compare with the ones held (docs/decisions/025-plan-changes.md): the same,
 * a step up (a dearer plan, or monthly to yearly) or a step down. A shorter cycle is a step down even
 * on a dearer plan: it would turn a paid year into credit.
 */
export function compareChange(
  held: Pick<Plan, 'planId' | 'priceMonthly'>,
  heldCycle: BillingCycle,
  target: Pick<Plan, 'planId' | 'priceMonthly'>,
  cycle: BillingCycle,
): 'same' | 'up' | 'down' {
  if (held.planId === target.planId && heldCycle === cycle) return 'same'
  if (target.priceMonthly < held.priceMonthly || (heldCycle === 'yearly' && cycle === 'monthly')) return 'down'
  return 'up'
}
