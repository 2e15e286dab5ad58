import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PlanConfig } from '#server/modules/entitlements/entitlements.repo.ts'
import { PLANS_FILE } from '#server/modules/entitlements/plans-file.ts'

/** The plans of the shipped config/plans.json. */
export const shippedPlans = (): PlanConfig[] => JSON.parse(readFileSync(PLANS_FILE, 'utf8'))

/**
 * A paid plan without premium models and without diamonds: what an operator may still configure
 * (ADR 018). Tests buy it through the sandbox to see premium models refused.
 */
export const BASIC_PLAN: PlanConfig = {
  id: 'basic',
  priceMonthly: 499,
  priceYearly: 4788,
  currency: 'USD',
  diamondsPerMonth: 0,
  memoryK: 8,
  unlimitedFreeModels: true,
  premiumModels: false,
  bestValue: false,
  sortOrder: 4,
}

/** Writes a plans file for tests and returns its path. */
export function writePlansFile(plans: unknown[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rp-plans-')), 'plans.json')
  writeFileSync(file, JSON.stringify(plans))
  return file
}
