import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { plans } from '#db/schema/diamonds.ts'
import { ConfigError } from '#server/config.ts'
import { BASIC_PLAN, shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { PlansFileError, plansProblems, readPlansFile } from './plans-file.ts'

const withPlan = (id: string, change: object) =>
  shippedPlans().map((plan) => (plan.id === id ? { ...plan, ...change } : plan))

/** The problems readPlansFile throws for this list, or [] when it accepts it. */
function problemsOf(list: unknown[]): string[] {
  try {
    readPlansFile(writePlansFile(list))
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(PlansFileError)
    expect(error).toBeInstanceOf(ConfigError)
    return (error as PlansFileError).problems
  }
}

describe('config/plans.json', () => {
  it('ships plans whose diamonds can all be spent: every plan that receives diamonds allows premium models', () => {
    const list = readPlansFile()
    const free = list.find((p) => p.priceMonthly === 0)
    expect(free).toMatchObject({ id: 'free', premiumModels: true })
    expect(free?.diamondsPerMonth).toBeGreaterThan(0)
    for (const plan of list.filter((p) => p.diamondsPerMonth > 0)) expect(plan.premiumModels).toBe(true)
  })

  it('refuses a plan that awards diamonds every month without premium models, naming it', () => {
    const problems = problemsOf(withPlan('plus', { premiumModels: false }))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain('plus awards 1000 diamonds a month but has "premiumModels": false')
    expect(problems[0]).toContain('diamonds are only spent on premium models')
    // The message says where the file is.
    expect(problems[0]).toMatch(/^plans file .*plans\.json: /)
  })

  it('refuses a free plan without premium models, where every account starts with its welcome diamonds', () => {
    expect(SIGNUP_GRANT_DIAMONDS).toBeGreaterThan(0)
    // Without monthly diamonds too: the welcome diamonds would still be unspendable.
    const problems = problemsOf(withPlan('free', { premiumModels: false, diamondsPerMonth: 0 }))
    expect(problems).toEqual([expect.stringContaining('free is the free plan, where every account starts with 50')])
    expect(problemsOf(withPlan('free', { premiumModels: false }))).toEqual([
      expect.stringContaining('free awards 30 diamonds a month but has "premiumModels": false'),
    ])
    // Were there no welcome diamonds, a free plan with no diamonds at all could refuse premium models.
    expect(plansProblems(withPlan('free', { premiumModels: false, diamondsPerMonth: 0 }), 0)).toEqual([])
  })

  it('accepts a paid plan with neither premium models nor diamonds (the per-plan gate stays)', () => {
    expect(problemsOf([...shippedPlans(), BASIC_PLAN])).toEqual([])
  })

  it('names every problem at once, including malformed plans and files', () => {
    const problems = problemsOf([
      ...withPlan('pro', { premiumModels: false }),
      { ...BASIC_PLAN, id: 'Bad Id' },
      { ...BASIC_PLAN, id: 'flagless', premiumModels: 'no' },
      { ...BASIC_PLAN, id: 'second-free', priceMonthly: 0 },
      null,
    ])
    expect(problems).toEqual([
      expect.stringContaining('pro awards 3000 diamonds a month'),
      expect.stringContaining('plan "Bad Id" has an invalid id, amount or flag'),
      expect.stringContaining('plan "flagless" has an invalid id, amount or flag'),
      expect.stringContaining('second-free is the free plan'),
      expect.stringContaining('null is not a plan'),
      expect.stringContaining('exactly one plan must cost 0 (the free plan)'),
    ])
    expect(problemsOf({ plans: [] } as unknown as unknown[])).toEqual([
      expect.stringContaining('must be a JSON array of plans'),
    ])
  })
})

describe('plans in the database', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  it('the rules come from the file read at start, never from the database copy, which each start corrects', async () => {
    // As a database synced from the earlier config/plans.json holds it.
    await t.database.db.update(plans).set({ premiumModels: false, memoryK: 1 }).where(eq(plans.id, 'free'))
    // What the pricing page, chat and payments are told does not follow the stored copy.
    expect(t.app.services.entitlements.freePlan).toMatchObject({ planId: 'free', premiumModels: true })
    const res = await t.app.inject({ method: 'GET', url: '/api/plan' })
    const free = res.json().data.plans.find((p: { planId: string }) => p.planId === 'free')
    expect(free).toMatchObject({ premiumModels: true, diamondsPerMonth: 30, memoryK: 4 })
    // Every start writes the file into the table (server/app.ts, onReady).
    await t.app.services.entitlements.syncPlansCopy()
    const [row] = await t.database.db.select().from(plans).where(eq(plans.id, 'free'))
    expect(row).toMatchObject({ premiumModels: true, memoryK: 4, active: true })
  })

  it('a bad plans file stops the start before anything is stored', async () => {
    const file = writePlansFile(withPlan('free', { premiumModels: false }))
    await expect(buildTestApp({ plansFile: file })).rejects.toBeInstanceOf(PlansFileError)
    const [row] = await t.database.db.select().from(plans).where(eq(plans.id, 'free'))
    expect(row?.premiumModels).toBe(true)
  })
})
