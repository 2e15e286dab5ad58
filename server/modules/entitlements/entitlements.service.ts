import type { Plan } from '#contracts/plans.ts'
import { AppError } from '#server/lib/errors.ts'
import type { Tx } from '#server/modules/diamonds/diamonds.repo.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { ModelConfig, ModelRegistry } from '#server/modules/models/models.ts'
import type { EntitlementsRepo } from './entitlements.repo.ts'
import type { PlanRegistry } from './plan-registry.ts'

/** What a user may do in one chat turn, decided before anything is stored or asked. */
export type TurnEntitlement = Readonly<{
  plan: Plan
  model: ModelConfig
  /** Diamonds the reply costs when it is stored complete: 0 for a free model. */
  price: number
}>

/**
 * The diamonds of a premium reply, reserved before the model is asked (ADR 024). `commit` runs the
 * transaction that stores the reply with `pay`, which spends the price (the hold's diamonds coming
 * back for it) inside that transaction; once it has committed the hold counts as settled. Any other
 * end gets the diamonds back.
 */
export type Reservation = {
  commit<T>(store: (pay: (tx: Tx, reference: string) => Promise<void>) => Promise<T>): Promise<T>
}

export type EntitlementsDeps = {
  repo: EntitlementsRepo
  plans: PlanRegistry
  models: ModelRegistry
  diamonds: Pick<DiamondsService, 'hold' | 'settleHold' | 'refundHold' | 'spend'>
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * Entitlements: the one owner of what a user may do and what it costs (docs/decisions/027). Which
 * plan the user holds now, its memory, the models it allows, the price of a reply and the diamonds
 * reserved for it. Plans and models are registries read once at start; the ledger stays in
 * diamonds, which this asks to hold, settle and refund.
 */
export function createEntitlements(deps: EntitlementsDeps) {
  const { repo, plans, models, diamonds, log } = deps

  /** A model named by the request, else the chat's model while it is offered, else the default. */
  function modelFor(chatModelId: string | undefined, sessionModelId: string | null): ModelConfig {
    if (chatModelId !== undefined) {
      const model = models.find(chatModelId)
      if (!model) throw new AppError(400, 'MODEL_UNAVAILABLE', 'This model is not offered.', { chatModelId })
      return model
    }
    return (sessionModelId ? models.find(sessionModelId) : undefined) ?? models.defaultModel
  }

  const priceOf = (model: ModelConfig) => (model.premium ? model.diamondsPerMessage : 0)

  return {
    /** The plans on sale (the pricing page, checkout). Async for the page loaders' interface. */
    listPlans: async (): Promise<Plan[]> => [...plans.plans],
    findPlan: plans.find,
    freePlan: plans.free,

    /** The plan of a user whose held paid plan id (from `heldPlanIdSql`) is this; null: free. */
    planOf: plans.heldOrFree,

    /** The plan the user holds now. */
    async currentPlan(userId: string): Promise<Plan> {
      return plans.heldOrFree(await repo.heldPlanId(userId))
    },

    /** Writes the plans file into the database copy (at start). */
    syncPlansCopy: () => repo.syncPlans(plans.configs),

    modelFor,

    /** An offered model that costs nothing. */
    isFreeModel: (modelId: string) => models.find(modelId)?.premium === false,

    /**
     * The model memory summaries use: SUMMARY_MODEL's, else the first free one (the platform pays
     * for them), else the default.
     */
    summaryModel: models.summaryModel ?? models.models.find((m) => !m.premium) ?? models.defaultModel,

    /**
     * What the one-statement free send (ADR 020) must know to store a message without asking
     * this module first: which model a turn would use, and which models it may not store for.
     */
    freeSendRules: Object.freeze({
      offeredModelIds: Object.freeze(models.models.map((m) => m.id)),
      premiumModelIds: Object.freeze(models.models.filter((m) => m.premium).map((m) => m.id)),
      defaultModelId: models.defaultModel.id,
    }),

    /**
     * May a user on `plan` have a reply from this model, and at what price. Refuses an unknown model
     * (400 MODEL_UNAVAILABLE) and a premium one the plan does not include (403 PREMIUM_REQUIRES_PLAN).
     */
    decideTurn(plan: Plan, chatModelId: string | undefined, sessionModelId: string | null): TurnEntitlement {
      const model = modelFor(chatModelId, sessionModelId)
      if (model.premium && !plan.premiumModels) {
        throw new AppError(403, 'PREMIUM_REQUIRES_PLAN', 'Premium models need a plan that includes them.', {
          chatModelId: model.id,
          planId: plan.planId,
        })
      }
      return { plan, model, price: priceOf(model) }
    },

    /**
     * Runs `work` with the turn's price reserved first (ADR 024): the balance goes down before any
     * text is written, so parallel turns cannot all spend the same diamonds; a price the balance
     * does not cover is refused with 402 before `work` starts. A reply stored with `settle` spends
     * it; anything else (a failure, a stop, a replay) gets it back. A free turn reserves nothing.
     */
    async withReservation<T>(
      userId: string,
      turn: TurnEntitlement,
      work: (reservation: Reservation | null) => Promise<T>,
    ): Promise<T> {
      if (turn.price === 0) return work(null)
      const holdId = await diamonds.hold(userId, turn.price, 'chat')
      let settled = false
      const pay = async (tx: Tx, reference: string) => {
        // False when the hold was refunded meanwhile (a reply that outlived the stale-hold
        // deadline): the spend then comes from the balance as it is, or fails with 402.
        await diamonds.settleHold(holdId, tx)
        await diamonds.spend(userId, turn.price, reference, 'chat', tx)
      }
      const reservation: Reservation = {
        async commit(store) {
          const stored = await store(pay)
          settled = true
          return stored
        },
      }
      try {
        return await work(reservation)
      } finally {
        if (!settled) {
          // If the database is away now, the stale-holds job refunds it later.
          await diamonds.refundHold(holdId).catch((error: unknown) => {
            log({ holdId, err: error }, 'diamond hold not refunded; the stale-holds job will')
          })
        }
      }
    },
  }
}

export type Entitlements = ReturnType<typeof createEntitlements>
