import { type Plan, yearlySavingsPercent } from '#contracts/plans.ts'
import type { PlanConfig } from './entitlements.repo.ts'
import { PLANS_FILE, readPlansFile } from './plans-file.ts'

/**
 * The plans, read once from config/plans.json at start (like the models from MODELS_FILE): what
 * each costs, awards and allows. Every rule about a plan is looked up here; the `plans` table is
 * only the copy that orders and subscriptions reference.
 */
export type PlanRegistry = Readonly<{
  /** The plans on sale, in the file's `sortOrder`, as the pricing page shows them. */
  plans: readonly Plan[]
  /** The one plan that costs nothing (the file is refused without exactly one). */
  free: Plan
  /** The plan with this id, or undefined. */
  find(planId: string): Plan | undefined
  /** The plan a user holds: the paid one with this id, else (null, or a plan no longer on sale) the free one. */
  heldOrFree(heldPlanId: string | null | undefined): Plan
  /** The file's entries, for the database copy. */
  configs: readonly PlanConfig[]
}>

export function toPlan(row: PlanConfig): Plan {
  return {
    planId: row.id,
    free: row.priceMonthly === 0,
    priceMonthly: row.priceMonthly,
    priceYearly: row.priceYearly,
    currency: row.currency,
    yearlySavingsPercent: yearlySavingsPercent(row.priceMonthly, row.priceYearly),
    bestValue: row.bestValue,
    diamondsPerMonth: row.diamondsPerMonth,
    memoryK: row.memoryK,
    unlimitedFreeModels: row.unlimitedFreeModels,
    premiumModels: row.premiumModels,
  }
}

/** The registry of a checked plans list. */
export function planRegistryOf(list: readonly PlanConfig[]): PlanRegistry {
  const configs = [...list].sort((a, b) => a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const plans = configs.map((config) => Object.freeze(toPlan(config)))
  const byId = new Map(plans.map((plan) => [plan.planId, plan]))
  const free = plans.find((plan) => plan.free)
  // readPlansFile refuses a list without exactly one free plan; this keeps the type honest.
  if (!free) throw new Error('the plans list has no free plan')
  return Object.freeze({
    plans: Object.freeze(plans),
    free,
    find: (planId: string) => byId.get(planId),
    heldOrFree: (heldPlanId: string | null | undefined) => (heldPlanId ? byId.get(heldPlanId) : undefined) ?? free,
    configs: Object.freeze(configs),
  })
}

/** Reads and checks the plans file (a bad one throws `PlansFileError`, a `ConfigError`). */
export function loadPlanRegistry(file = PLANS_FILE): PlanRegistry {
  return planRegistryOf(readPlansFile(file))
}
