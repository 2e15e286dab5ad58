import { describe, expect, it } from 'vitest'
import type { Plan } from '#contracts/plans.ts'
import { addPeriod, convertTime, oneOffPeriod } from './plan-change.ts'

// The period arithmetic of plan-change.ts alone (ADR 025); plan-change.test.ts drives it through the API.

const DAY = 86_400_000
const plan = (planId: string, priceMonthly: number, priceYearly: number) =>
  ({ planId, priceMonthly, priceYearly, diamondsPerMonth: 1000, free: false, currency: 'USD' }) as Plan
const PLUS = plan('plus', 1000, 12_000)
const PRO = plan('pro', 3000, 36_000)
const now = new Date('2026-01-31T10:00:00Z')
/** Converted time is floored to whole milliseconds from a floating-point rate: a millisecond apart is equal. */
const expectMs = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1)

describe('periods and plan changes paid once', () => {
  it('adds a calendar month (clamped to the month’s last day) or a year', () => {
    expect(addPeriod(now, 'monthly').toISOString()).toBe('2026-02-28T10:00:00.000Z')
    expect(addPeriod(new Date('2026-03-15T00:00:00Z'), 'monthly').toISOString()).toBe('2026-04-15T00:00:00.000Z')
    expect(addPeriod(now, 'yearly').toISOString()).toBe('2027-01-31T10:00:00.000Z')
  })

  it('converts time by price: a third as long on a plan three times as dear, nothing for nothing', () => {
    expectMs(convertTime(30 * DAY, PLUS, 'monthly', PRO, 'monthly'), 10 * DAY)
    expect(convertTime(-DAY, PLUS, 'monthly', PRO, 'monthly')).toBe(0)
  })

  it('the plan held, paid again, extends from its end in the cycle bought', () => {
    const running = { billingCycle: 'monthly' as const, currentPeriodEnd: new Date('2026-02-20T00:00:00Z') }
    expect(oneOffPeriod(running, PLUS, PLUS, 'yearly', now)).toEqual({
      planId: 'plus',
      billingCycle: 'yearly',
      currentPeriodEnd: new Date('2027-02-20T00:00:00Z'),
    })
  })

  it('a higher plan starts now, and the days left on the old one become fewer days of it', () => {
    const running = { billingCycle: 'monthly' as const, currentPeriodEnd: new Date(now.getTime() + 30 * DAY) }
    const next = oneOffPeriod(running, PLUS, PRO, 'monthly', now)
    expect(next.planId).toBe('pro')
    expectMs(next.currentPeriodEnd.getTime(), addPeriod(now, 'monthly').getTime() + 10 * DAY)
  })

  it('a lower plan (bought while the state changed) adds its worth in days of the plan held', () => {
    const running = { billingCycle: 'monthly' as const, currentPeriodEnd: new Date(now.getTime() + 30 * DAY) }
    const next = oneOffPeriod(running, PRO, PLUS, 'monthly', now)
    const bought = addPeriod(now, 'monthly').getTime() - now.getTime()
    expect(next).toMatchObject({ planId: 'pro', billingCycle: 'monthly' })
    expectMs(next.currentPeriodEnd.getTime(), running.currentPeriodEnd.getTime() + bought / 3)
  })
})
