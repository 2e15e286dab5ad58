import { describe, expect, it } from 'vitest'
import type { ModelConfig } from '#server/modules/models/models.ts'
import type { SessionView } from './chat.repo.ts'
import { createMemorySummary } from './memory-summary.ts'
import type { Prompt } from './prompt.ts'
import { createTurnSlots } from './turn-slots.ts'

const session = (memoryThroughId: number | null) =>
  ({ id: 's1', userId: 'u1', memoryThroughId }) as unknown as SessionView

const prompt = (trimmed: boolean, oldestKeptId: number): Prompt => ({
  messages: [],
  usedTokens: 0,
  included: [{ id: oldestKeptId, author: 'user', content: 'x', tokens: 1 }],
  trimmed,
})

function summaryWith(options: { enqueueFails?: boolean } = {}) {
  const queued: unknown[] = []
  const logged: string[] = []
  const slots = createTurnSlots()
  const memory = createMemorySummary({
    repo: {} as never,
    summaryModel: {} as ModelConfig,
    jobs: {
      enqueue: async (kind, payload, enqueueOptions) => {
        if (options.enqueueFails) throw new Error('database away')
        queued.push({ kind, payload, key: enqueueOptions?.key })
        return true as never
      },
    },
    slots,
    timeoutMs: 1000,
    log: (_info, msg) => logged.push(msg),
  })
  return { memory, queued, logged, slots }
}

describe('scheduling a memory summary after a reply', () => {
  it('queues one job per session when messages left the window and the note does not cover them', async () => {
    const { memory, queued } = summaryWith()
    memory.schedule(session(null), prompt(true, 40))
    memory.schedule(session(10), prompt(true, 40))
    await Promise.resolve()
    expect(queued).toEqual([
      { kind: 'chat-summary', payload: { sessionId: 's1', userId: 'u1', keptFromId: 40 }, key: 'summary:s1' },
      { kind: 'chat-summary', payload: { sessionId: 's1', userId: 'u1', keptFromId: 40 }, key: 'summary:s1' },
    ])
  })

  it('queues nothing when everything fits, when the note already covers what left, or after shutdown', async () => {
    const { memory, queued, slots } = summaryWith()
    memory.schedule(session(null), prompt(false, 40))
    memory.schedule(session(39), prompt(true, 40))
    await slots.close()
    memory.schedule(session(null), prompt(true, 40))
    await Promise.resolve()
    expect(queued).toEqual([])
  })

  it('a job that cannot be queued is logged, never thrown at the reply', async () => {
    const { memory, logged, slots } = summaryWith({ enqueueFails: true })
    expect(() => memory.schedule(session(null), prompt(true, 40))).not.toThrow()
    await slots.close() // Waits for the tracked enqueue.
    expect(logged).toEqual(['memory summary could not be queued'])
  })
})
