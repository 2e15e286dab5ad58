import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '#server/modules/models/llm-client.ts'
import { CONTINUE_TURN, INSTRUCTIONS_CLOSE, INSTRUCTIONS_OPEN, shapeMessages } from './message-shaping.ts'

const u = (content: string): ChatMessage => ({ role: 'user', content })
const a = (content: string): ChatMessage => ({ role: 'assistant', content })
const base = { system: 'You are Mara.', postHistory: '', characterName: 'Mara' }

/** What every strict template asks: one system message first, then user/assistant in turn, a user turn last. */
function expectStrict(messages: ChatMessage[]) {
  expect(messages[0]?.role).toBe('system')
  const rest = messages.slice(1)
  expect(rest.every((m, i) => m.role === (i % 2 === 0 ? 'user' : 'assistant'))).toBe(true)
  expect(messages.at(-1)?.role).toBe('user')
}

describe('shapeMessages (strict)', () => {
  it("folds the character's greeting into the system prompt", () => {
    const shaped = shapeMessages({ ...base, turns: [a('Come in out of the rain.'), u('Thanks.')] })
    expect(shaped).toEqual([
      {
        role: 'system',
        content: 'You are Mara.\n\n## The conversation so far begins with Mara saying:\nCome in out of the rain.',
      },
      u('Thanks.'),
    ])
    expectStrict(shaped)
  })

  it('merges turns of one author, a blank line between them (a stranded message, then a new one)', () => {
    const shaped = shapeMessages({ ...base, turns: [u('Hello?'), a('Yes.'), u('Is anyone here?'), u('Hello again.')] })
    expect(shaped.slice(1)).toEqual([u('Hello?'), a('Yes.'), u('Is anyone here?\n\nHello again.')])
    expectStrict(shaped)
  })

  it('puts the post-history instructions in a delimited block at the end of the last user turn', () => {
    const shaped = shapeMessages({ ...base, postHistory: 'Stay short.', turns: [u('Hi.')] })
    expect(shaped.at(-1)).toEqual(u(`Hi.\n\n${INSTRUCTIONS_OPEN}\nStay short.\n${INSTRUCTIONS_CLOSE}`))
    expectStrict(shaped)
  })

  it('ends with a user turn when the conversation ends with the character', () => {
    const shaped = shapeMessages({ ...base, turns: [u('Hi.'), a('Hello.')] })
    expect(shaped.at(-1)).toEqual(u(CONTINUE_TURN))
    expectStrict(shaped)
    expectStrict(shapeMessages({ ...base, turns: [] }))
    expectStrict(shapeMessages({ ...base, turns: [a('Only a greeting.')], postHistory: 'Stay short.' }))
  })

  it('gives strict alternation for any sequence of turns', () => {
    const authors = ['user', 'assistant'] as const
    for (let bits = 0; bits < 1 << 7; bits++) {
      const turns = Array.from({ length: 7 }, (_, i) => ({
        role: authors[(bits >> i) & 1] ?? 'user',
        content: `#${i}`,
      }))
      const shaped = shapeMessages({ ...base, turns, postHistory: bits % 2 ? 'Note.' : '' })
      expectStrict(shaped)
      // Nothing is lost: every text is still in the prompt, in order.
      const text = shaped.map((m) => m.content).join('\n')
      const positions = turns.map((t) => text.indexOf(t.content))
      expect(positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] ?? 0)))).toBe(true)
    }
  })
})

describe('shapeMessages (system-anywhere)', () => {
  it('keeps the greeting as an assistant turn and the instructions as a last system message', () => {
    const shaped = shapeMessages(
      { ...base, postHistory: 'Stay short.', turns: [a('Welcome.'), u('Hi.'), u('Anyone?')] },
      'system-anywhere',
    )
    expect(shaped).toEqual([
      { role: 'system', content: 'You are Mara.' },
      a('Welcome.'),
      u('Hi.\n\nAnyone?'),
      { role: 'system', content: 'Stay short.' },
    ])
  })
})
