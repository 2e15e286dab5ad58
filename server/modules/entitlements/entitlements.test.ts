import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subscriptions } from '#db/schema/payments.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { BASIC_PLAN, shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import type { EntitlementsRepo } from './entitlements.repo.ts'
import { createEntitlements } from './entitlements.service.ts'
import { loadPlanRegistry, planRegistryOf } from './plan-registry.ts'

const models = loadModelRegistry({
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: undefined,
  model: 'unused',
  modelsFile: writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 8192 },
    { id: 'grand-70b', name: 'Grand 70B', premium: true, diamondsPerMessage: 5, contextTokens: 128_000 },
  ]),
})
const plans = planRegistryOf([...shippedPlans(), BASIC_PLAN])

/** The diamonds calls entitlements makes, recorded; `holdFails` refuses the hold like a short balance. */
function recordingDiamonds(options: { holdFails?: boolean } = {}) {
  const calls: string[] = []
  const diamonds: Pick<DiamondsService, 'hold' | 'settleHold' | 'refundHold' | 'spend'> = {
    async hold(userId, amount) {
      calls.push(`hold ${userId} ${amount}`)
      if (options.holdFails) throw new AppError(402, 'INSUFFICIENT_DIAMONDS', 'Not enough diamonds for this.')
      return 'hold-1'
    },
    async settleHold(holdId) {
      calls.push(`settle ${holdId}`)
      return true
    },
    async refundHold(holdId) {
      calls.push(`refund ${holdId}`)
      return true
    },
    async spend(userId, amount, reference) {
      calls.push(`spend ${userId} ${amount} ${reference}`)
      return { applied: true, balance: 0 }
    },
  }
  return { calls, diamonds }
}

const entitlementsWith = (diamonds = recordingDiamonds().diamonds) =>
  createEntitlements({
    repo: {} as EntitlementsRepo,
    plans,
    models,
    diamonds,
    log: () => {},
  })

describe('the plan registry', () => {
  it('orders the plans as the file says, finds the free one, and falls back to it for unknown ids', () => {
    expect(plans.plans.map((p) => p.planId)).toEqual(['free', 'plus', 'pro', 'ultra', 'basic'])
    expect(plans.free.planId).toBe('free')
    expect(plans.heldOrFree(null).planId).toBe('free')
    expect(plans.heldOrFree('pro')).toMatchObject({ planId: 'pro', memoryK: 32, premiumModels: true })
    // A plan taken off sale while someone still held it: they get what the free plan allows.
    expect(plans.heldOrFree('retired').planId).toBe('free')
  })

  it('is frozen: nothing can change a rule after the start', () => {
    const registry = loadPlanRegistry(writePlansFile(shippedPlans()))
    expect(() => {
      ;(registry.plans as unknown as unknown[]).push({})
    }).toThrow()
    expect(() => {
      ;(registry.free as { memoryK: number }).memoryK = 999
    }).toThrow()
  })
})

describe('a turn’s entitlement', () => {
  const entitlements = entitlementsWith()

  it('prices a free model at 0 and a premium one at its diamonds per message', () => {
    expect(entitlements.decideTurn(plans.free, 'tavern-8b', null)).toMatchObject({ price: 0 })
    expect(entitlements.decideTurn(plans.free, 'grand-70b', null)).toMatchObject({
      price: 5,
      model: { id: 'grand-70b' },
    })
  })

  it('uses the chat’s model while it is offered, else the default', () => {
    expect(entitlements.decideTurn(plans.free, undefined, 'grand-70b').model.id).toBe('grand-70b')
    expect(entitlements.decideTurn(plans.free, undefined, 'withdrawn').model.id).toBe('tavern-8b')
    expect(entitlements.decideTurn(plans.free, undefined, null).model.id).toBe('tavern-8b')
  })

  it('refuses a model not offered and a premium model the plan does not include', () => {
    expect(() => entitlements.decideTurn(plans.free, 'nope', null)).toThrow(
      expect.objectContaining({ status: 400, code: 'MODEL_UNAVAILABLE' }),
    )
    const basic = plans.heldOrFree('basic')
    expect(() => entitlements.decideTurn(basic, 'grand-70b', null)).toThrow(
      expect.objectContaining({ status: 403, code: 'PREMIUM_REQUIRES_PLAN', details: expect.anything() }),
    )
  })

  it('gives the one-statement free send the model lists it needs', () => {
    expect(entitlements.freeSendRules).toEqual({
      offeredModelIds: ['tavern-8b', 'grand-70b'],
      premiumModelIds: ['grand-70b'],
      defaultModelId: 'tavern-8b',
    })
    expect(entitlements.isFreeModel('tavern-8b')).toBe(true)
    expect(entitlements.isFreeModel('grand-70b')).toBe(false)
    expect(entitlements.isFreeModel('nope')).toBe(false)
    expect(entitlements.summaryModel.id).toBe('tavern-8b')
  })
})

describe('reserving a reply’s price', () => {
  const premium = () => entitlementsWith().decideTurn(plans.free, 'grand-70b', null)
  // The transaction the store opens; the recording double only passes it on.
  const tx = {} as Tx

  it('reserves nothing for a free reply', async () => {
    const { calls, diamonds } = recordingDiamonds()
    const free = entitlementsWith(diamonds).decideTurn(plans.free, 'tavern-8b', null)
    expect(await entitlementsWith(diamonds).withReservation('u1', free, async (r) => r)).toBeNull()
    expect(calls).toEqual([])
  })

  it('holds before the work, and a committed store settles and spends in its transaction, without a refund', async () => {
    const { calls, diamonds } = recordingDiamonds()
    await entitlementsWith(diamonds).withReservation('u1', premium(), async (reservation) => {
      expect(calls).toEqual(['hold u1 5'])
      await reservation?.commit(async (pay) => pay(tx, 'chat:7'))
    })
    expect(calls).toEqual(['hold u1 5', 'settle hold-1', 'spend u1 5 chat:7'])
  })

  it('refunds when the work fails, stops, or its store rolls back', async () => {
    const failed = recordingDiamonds()
    await expect(
      entitlementsWith(failed.diamonds).withReservation('u1', premium(), async () => {
        throw new Error('model down')
      }),
    ).rejects.toThrow('model down')
    expect(failed.calls).toEqual(['hold u1 5', 'refund hold-1'])

    const rolledBack = recordingDiamonds()
    await entitlementsWith(rolledBack.diamonds)
      .withReservation('u1', premium(), async (reservation) =>
        reservation?.commit(async (pay) => {
          await pay(tx, 'chat:8')
          throw new Error('the transaction rolled back')
        }),
      )
      .catch(() => {})
    expect(rolledBack.calls).toEqual(['hold u1 5', 'settle hold-1', 'spend u1 5 chat:8', 'refund hold-1'])

    const stopped = recordingDiamonds()
    await entitlementsWith(stopped.diamonds).withReservation('u1', premium(), async () => 'stopped')
    expect(stopped.calls).toEqual(['hold u1 5', 'refund hold-1'])
  })

  it('a balance that does not cover the price refuses before the work starts', async () => {
    const { calls, diamonds } = recordingDiamonds({ holdFails: true })
    let ran = false
    await expect(
      entitlementsWith(diamonds).withReservation('u1', premium(), async () => {
        ran = true
      }),
    ).rejects.toMatchObject({ status: 402, code: 'INSUFFICIENT_DIAMONDS' })
    expect(ran).toBe(false)
    expect(calls).toEqual(['hold u1 5'])
  })
})

describe('the plan a user holds now', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  it('is the paid plan while its period runs, then the free plan', async () => {
    const { user } = await t.login()
    const { entitlements } = t.app.services
    expect((await entitlements.currentPlan(user.id)).planId).toBe('free')
    const row = {
      userId: user.id,
      planId: 'pro',
      billingCycle: 'monthly' as const,
      status: 'active' as const,
      provider: 'sandbox' as const,
      currentPeriodEnd: new Date(Date.now() + 60_000),
    }
    await t.database.db.insert(subscriptions).values(row)
    expect(await entitlements.currentPlan(user.id)).toMatchObject({ planId: 'pro', memoryK: 32 })
    await t.database.db.update(subscriptions).set({ currentPeriodEnd: new Date(Date.now() - 1000) })
    expect((await entitlements.currentPlan(user.id)).planId).toBe('free')
  })
})
