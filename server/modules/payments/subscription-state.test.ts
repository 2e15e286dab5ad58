import { describe, expect, it } from 'vitest'
import type { Plan } from '#contracts/plans.ts'
import type { SubscriptionChanged } from './gateway.ts'
import type { SubscriptionRow } from './payments.repo.ts'
import { isNewer, renews, stateAfterChange, subscriptionView } from './subscription-state.ts'

const DAY = 86_400_000
const now = new Date('2026-03-10T12:00:00Z')
const plan = (planId: string, priceMonthly: number, free = false) =>
  ({ planId, priceMonthly, priceYearly: priceMonthly * 10, diamondsPerMonth: 1000, free, currency: 'USD' }) as Plan
const PLANS = [plan('free', 0, true), plan('plus', 999), plan('pro', 2999)]
const row = (values: Partial<SubscriptionRow> = {}): SubscriptionRow => ({
  userId: '00000000-0000-4000-8000-000000000003',
  planId: 'plus',
  billingCycle: 'monthly',
  provider: 'stripe',
  providerSubscriptionId: 'sub_1',
  status: 'active',
  currentPeriodEnd: new Date(now.getTime() + 20 * DAY),
  cancelAtPeriodEnd: false,
  lastEventAt: now,
  updatedAt: now,
  ...values,
})
const change = (values: Partial<SubscriptionChanged> = {}): SubscriptionChanged => ({
  kind: 'subscription-changed',
  providerSubscriptionId: 'sub_1',
  cancelAtPeriodEnd: false,
  status: 'active',
  ...values,
})
const later = new Date(now.getTime() + 1000)

describe('the stored subscription and a provider’s word', () => {
  it('renews only with a live provider subscription not set to end', () => {
    expect(renews(row())).toBe(true)
    expect(renews(row({ cancelAtPeriodEnd: true }))).toBe(false)
    expect(renews(row({ status: 'canceled' }))).toBe(false)
    expect(renews(row({ providerSubscriptionId: null }))).toBe(false)
    expect(subscriptionView(row())).toEqual({
      planId: 'plus',
      billingCycle: 'monthly',
      status: 'active',
      currentPeriodEnd: row().currentPeriodEnd.toISOString(),
      renews: true,
      cancelAtPeriodEnd: false,
    })
  })

  it('ignores a change older than the last one applied, and any change to an ended subscription', () => {
    expect(isNewer(row(), now)).toBe(true)
    expect(isNewer(row({ lastEventAt: null }), new Date(0))).toBe(true)
    expect(stateAfterChange(row(), change(), new Date(now.getTime() - 1), PLANS)).toBeUndefined()
    expect(stateAfterChange(row({ status: 'canceled' }), change(), later, PLANS)).toBeUndefined()
  })

  it('reads a set end within a day of the period end, or Stripe’s canceled, as cancelled at the period end', () => {
    const sub = row()
    const near = new Date(sub.currentPeriodEnd.getTime() + DAY)
    const far = new Date(sub.currentPeriodEnd.getTime() + 2 * DAY)
    expect(stateAfterChange(sub, change({ cancelAt: near }), later, PLANS)?.values.cancelAtPeriodEnd).toBe(true)
    expect(stateAfterChange(sub, change({ cancelAt: far }), later, PLANS)?.values.cancelAtPeriodEnd).toBe(false)
    const canceled = stateAfterChange(row({ status: 'past_due' }), change({ status: 'canceled' }), later, PLANS)
    // The end itself comes with customer.subscription.deleted: the status stays as it was.
    expect(canceled?.values).toMatchObject({ cancelAtPeriodEnd: true, status: 'past_due' })
    expect(stateAfterChange(sub, change({ status: 'unpaid' }), later, PLANS)?.values.status).toBe('past_due')
    expect(stateAfterChange(sub, change({ status: 'trialing' }), later, PLANS)?.values.status).toBe('active')
  })

  it('moves to another paid plan or cycle with the new period end; an unknown or free plan moves nothing', () => {
    const periodEnd = new Date(now.getTime() + 365 * DAY)
    const upgrade = stateAfterChange(row(), change({ planId: 'pro', periodEnd }), later, PLANS)
    expect(upgrade?.plan?.planId).toBe('pro')
    expect(upgrade?.values).toMatchObject({ planId: 'pro', billingCycle: 'monthly', currentPeriodEnd: periodEnd })
    const yearly = stateAfterChange(row(), change({ planId: 'plus', billingCycle: 'yearly' }), later, PLANS)
    expect(yearly?.values).toMatchObject({
      planId: 'plus',
      billingCycle: 'yearly',
      currentPeriodEnd: row().currentPeriodEnd,
    })
    for (const planId of ['plus', 'free', 'unknown']) {
      const same = stateAfterChange(row(), change({ planId, periodEnd }), later, PLANS)
      expect(same?.plan).toBeUndefined()
      expect(same?.values).toEqual({ status: 'active', cancelAtPeriodEnd: false, lastEventAt: later })
    }
  })
})
