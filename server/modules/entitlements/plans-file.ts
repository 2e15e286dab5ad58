import { readFileSync } from 'node:fs'
import path from 'node:path'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { ConfigError } from '#server/config.ts'
import type { PlanConfig } from './entitlements.repo.ts'

export const PLANS_FILE = path.resolve(import.meta.dirname, '..', '..', '..', 'config', 'plans.json')

/** A config/plans.json that cannot be used. `problems` name the plan and what is wrong with it. */
export class PlansFileError extends ConfigError {
  readonly file: string
  constructor(file: string, problems: string[]) {
    super(problems.map((p) => `plans file ${file}: ${p}`))
    this.name = 'PlansFileError'
    this.file = file
  }
}

/**
 * Checks a plans list. Diamonds only buy premium replies, so a plan that hands out diamonds must
 * allow premium models: the monthly diamonds of any plan, and the welcome diamonds that every
 * account starts with on the free plan (ADR 018).
 */
export function plansProblems(list: PlanConfig[], signupGrant = SIGNUP_GRANT_DIAMONDS): string[] {
  const problems: string[] = []
  for (const plan of list) {
    if (typeof plan !== 'object' || plan === null) {
      problems.push(`${JSON.stringify(plan)} is not a plan`)
      continue
    }
    const amounts = [plan.priceMonthly, plan.priceYearly, plan.diamondsPerMonth, plan.memoryK]
    const flags = [plan.unlimitedFreeModels, plan.premiumModels, plan.bestValue]
    if (
      !/^[a-z0-9-]{1,40}$/.test(plan.id) ||
      amounts.some((n) => !Number.isInteger(n) || n < 0) ||
      flags.some((flag) => typeof flag !== 'boolean')
    ) {
      problems.push(`plan ${JSON.stringify(plan.id)} has an invalid id, amount or flag`)
      continue
    }
    if (!/^[A-Z]{3}$/.test(plan.currency)) problems.push(`${plan.id} has no ISO currency`)
    if (!plan.premiumModels && plan.diamondsPerMonth > 0) {
      problems.push(
        `${plan.id} awards ${plan.diamondsPerMonth} diamonds a month but has "premiumModels": false, and diamonds are only spent on premium models: allow premium models or set "diamondsPerMonth" to 0`,
      )
    } else if (!plan.premiumModels && plan.priceMonthly === 0 && signupGrant > 0) {
      problems.push(
        `${plan.id} is the free plan, where every account starts with ${signupGrant} welcome diamonds, but has "premiumModels": false, and diamonds are only spent on premium models: allow premium models`,
      )
    }
  }
  if (list.filter((p) => p?.priceMonthly === 0).length !== 1)
    problems.push('exactly one plan must cost 0 (the free plan)')
  return problems
}

/** Reads and checks config/plans.json. Throws `PlansFileError` naming every problem. */
export function readPlansFile(file = PLANS_FILE): PlanConfig[] {
  let list: PlanConfig[]
  try {
    list = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new PlansFileError(file, [error instanceof Error ? error.message : String(error)])
  }
  if (!Array.isArray(list)) throw new PlansFileError(file, ['must be a JSON array of plans'])
  const problems = plansProblems(list)
  if (problems.length > 0) throw new PlansFileError(file, problems)
  return list
}
