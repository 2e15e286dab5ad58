import { readFileSync } from 'node:fs'
import path from 'node:path'
import { type Plan, yearlySavingsPercent } from '#contracts/plans.ts'
import type { PlanConfig, PlansRepo } from './plans.repo.ts'

export const PLANS_FILE = path.resolve(import.meta.dirname, '..', '..', '..', 'config', 'plans.json')

export function readPlansFile(file = PLANS_FILE): PlanConfig[] {
  const list = JSON.parse(readFileSync(file, 'utf8')) as PlanConfig[]
  for (const plan of list) {
    const prices = [plan.priceMonthly, plan.priceYearly, plan.diamondsPerMonth, plan.memoryK]
    if (!/^[a-z0-9-]{1,40}$/.test(plan.id) || prices.some((n) => !Number.isInteger(n) || n < 0)) {
      throw new Error(`config/plans.json: plan ${JSON.stringify(plan.id)} has an invalid id or amount`)
    }
    if (!/^[A-Z]{3}$/.test(plan.currency)) throw new Error(`config/plans.json: ${plan.id} has no ISO currency`)
  }
  if (list.filter((p) => p.priceMonthly === 0).length !== 1) throw new Error('config/plans.json: exactly one free plan')
  return list
}

export function createPlansService(repo: PlansRepo) {
  return {
    /** Loads config/plans.json into the database (called at start). */
    async syncFromConfig(file = PLANS_FILE) {
      await repo.sync(readPlansFile(file))
    },

    async listPlans(): Promise<Plan[]> {
      return (await repo.activePlans()).map((row) => ({
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
      }))
    },

    async freePlan(): Promise<Plan | undefined> {
      return (await this.listPlans()).find((p) => p.free)
    },
  }
}

export type PlansService = ReturnType<typeof createPlansService>
