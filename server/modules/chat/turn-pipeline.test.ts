import { describe, expect, it } from 'vitest'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { EntitlementsRepo } from '#server/modules/entitlements/entitlements.repo.ts'
import { createEntitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { planRegistryOf } from '#server/modules/entitlements/plan-registry.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { BASIC_PLAN, shippedPlans } from '#tests/helpers/plans.ts'
import type { ChatMessageRow, SessionView } from './chat.repo.ts'
import type { TurnHooks } from './chat-views.ts'
import type { Generation } from './generation.ts'
import { createTurnPipeline, type TurnPipelineDeps } from './turn-pipeline.ts'
import { createTurnSlots } from './turn-slots.ts'

const SESSION_ID = '7d0c0a51-3b7a-4d2b-9c59-3c1f1d2f0a11'

const models = loadModelRegistry({
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: undefined,
  model: 'unused',
  modelsFile: writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 8192 },
    { id: 'grand-70b', name: 'Grand 70B', premium: true, diamondsPerMessage: 5, contextTokens: 8192 },
  ]),
})

const session = (paidPlanId: string | null) =>
  ({
    id: SESSION_ID,
    userId: 'u1',
    modelId: null,
    paidPlanId,
    rolePublicId: 'role-1',
    roleWithheld: false,
    sceneMembers: 0,
  }) as unknown as SessionView

const message = (id: number, author: 'user' | 'assistant') =>
  ({ id, author, content: `m${id}`, tokens: 3 }) as unknown as ChatMessageRow

/**
 * The pipeline with the real entitlements and slots, and a repo, diamonds and generation that
 * record what they are asked, in order, in `calls`.
 */
function pipelineWith(options: {
  paidPlanId?: string | null
  recent?: ChatMessageRow[]
  swipeForRequest?: boolean
  sendFreeStores?: boolean
}) {
  const calls: string[] = []
  const held = session(options.paidPlanId ?? null)
  const note = <T>(call: string, value: T): T => {
    calls.push(call)
    return value
  }
  const diamonds: Pick<DiamondsService, 'hold' | 'settleHold' | 'refundHold' | 'spend'> = {
    hold: async (_user, amount) => note(`hold ${amount}`, 'h1'),
    settleHold: async () => note('settle', true),
    refundHold: async () => note('refund', true),
    spend: async () => note('spend', { applied: true, balance: 0 }),
  }
  const entitlements = createEntitlements({
    repo: {} as EntitlementsRepo,
    plans: planRegistryOf([...shippedPlans(), BASIC_PLAN]),
    models,
    diamonds,
    log: () => {},
  })
  const repo: TurnPipelineDeps['repo'] = {
    sendFree: async () => {
      calls.push('sendFree')
      return options.sendFreeStores ? { session: held, recent: [], userMessage: message(10, 'user') } : null
    },
    sendContext: async () => note('sendContext', { session: held, earlierId: null, recent: [] }),
    findSession: async () => note('findSession', held),
    recentMessages: async () => note('recentMessages', options.recent ?? []),
    insertUserMessage: async () => note('insertUserMessage', message(11, 'user')),
    findUserMessageByRequest: async () => null,
    messageAfter: async () => null,
    findSwipeByRequest: async () => note('findSwipeByRequest', options.swipeForRequest ? ({} as never) : null),
  }
  const generation = {
    generate: async (turn) => {
      calls.push(`generate ${turn.model.id}${turn.reservation ? ' reserved' : ''}`)
      return { kind: 'stopped', result: null, reply: null }
    },
    replay: async (turn, reply) => {
      calls.push(`replay ${reply.id}${turn.reservation ? ' reserved' : ''}`)
      return { kind: 'stopped', result: null, reply: null }
    },
  } satisfies Generation
  const pipeline = createTurnPipeline({ repo, entitlements, slots: createTurnSlots(), generation })
  return { pipeline, calls }
}

const hooks: TurnHooks = { onStart: () => {}, onDelta: () => {} }

describe('the one send path', () => {
  it('the usual free send is one statement, then generation: nothing reserved', async () => {
    const { pipeline, calls } = pipelineWith({ sendFreeStores: true })
    await pipeline.send('u1', { sessionId: SESSION_ID, message: 'hi', chatModelId: 'tavern-8b' }, hooks)
    expect(calls).toEqual(['sendFree', 'generate tavern-8b'])
  })

  it('a premium send: context, decision, reservation, then the message stored, then generation', async () => {
    const { pipeline, calls } = pipelineWith({})
    await pipeline.send('u1', { sessionId: SESSION_ID, message: 'hi', chatModelId: 'grand-70b' }, hooks)
    expect(calls).toEqual(['sendContext', 'hold 5', 'insertUserMessage', 'generate grand-70b reserved', 'refund'])
  })

  it('a refused model stores nothing and reserves nothing, for send and regenerate alike', async () => {
    const { pipeline, calls } = pipelineWith({ paidPlanId: 'basic', recent: [message(1, 'user')] })
    const refused = { status: 403, code: 'PREMIUM_REQUIRES_PLAN' }
    await expect(
      pipeline.send('u1', { sessionId: SESSION_ID, message: 'hi', chatModelId: 'grand-70b' }, hooks),
    ).rejects.toMatchObject(refused)
    await expect(
      pipeline.regenerate('u1', { sessionId: SESSION_ID, chatModelId: 'grand-70b' }, hooks),
    ).rejects.toMatchObject(refused)
    expect(calls).toEqual(['sendContext', 'findSession'])
  })

  it('regenerate answers a last user message (the resend after an edit) through the same stages', async () => {
    const { pipeline, calls } = pipelineWith({ recent: [message(3, 'user'), message(2, 'assistant')] })
    await pipeline.regenerate('u1', { sessionId: SESSION_ID, chatModelId: 'grand-70b' }, hooks)
    expect(calls).toEqual(['findSession', 'recentMessages', 'hold 5', 'generate grand-70b reserved', 'refund'])
  })

  it('a repeated regenerate is replayed before any price is reserved', async () => {
    const { pipeline, calls } = pipelineWith({
      recent: [message(4, 'assistant'), message(3, 'user')],
      swipeForRequest: true,
    })
    await pipeline.regenerate('u1', { sessionId: SESSION_ID, chatModelId: 'grand-70b', requestId: 'r1' }, hooks)
    expect(calls).toEqual(['findSession', 'recentMessages', 'findSwipeByRequest', 'replay 4'])
  })
})
