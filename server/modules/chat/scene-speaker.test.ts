import { describe, expect, it } from 'vitest'
import { createNameStripper, sceneNote, stripOwnName } from './scene-prompt.ts'
import { chooseSpeaker, namedIn } from './scene-speaker.ts'
import { summaryPrompt } from './summary-request.ts'

// ADR 052: who speaks next, the reply's own name taken off, and the memory naming who said what.

const members = [
  { roleId: 1, name: 'Alda' },
  { roleId: 2, name: 'Bran' },
  { roleId: 3, name: 'Cora Lee' },
]
const base = { members, requested: null, lastSpeaker: null, lastReplies: new Map<number, number>(), userMessage: '' }

describe('chooseSpeaker', () => {
  it('turns: the member after the last speaker, wrapping; the first when none spoke', () => {
    expect(chooseSpeaker({ ...base, mode: 'turns' })).toBe(1)
    expect(chooseSpeaker({ ...base, mode: 'turns', lastSpeaker: 1 })).toBe(2)
    expect(chooseSpeaker({ ...base, mode: 'turns', lastSpeaker: 3 })).toBe(1)
  })

  it('natural: the member named first (whole words, any case), else the one quiet longest', () => {
    expect(chooseSpeaker({ ...base, mode: 'natural', userMessage: 'Well, cora lee? And Bran.' })).toBe(3)
    // "Brandy" is not Bran.
    expect(namedIn('A glass of Brandy.', members)).toBeNull()
    const lastReplies = new Map([
      [1, 10],
      [2, 4],
      [3, 12],
    ])
    expect(chooseSpeaker({ ...base, mode: 'natural', lastReplies, userMessage: 'Hello.' })).toBe(2)
    // One who never spoke is the quietest.
    expect(chooseSpeaker({ ...base, mode: 'natural', lastReplies: new Map([[1, 3]]), userMessage: 'Hi' })).toBe(2)
  })

  it('manual: the pick, else the last speaker; a pick that is no member is ignored', () => {
    expect(chooseSpeaker({ ...base, mode: 'manual', requested: 3 })).toBe(3)
    expect(chooseSpeaker({ ...base, mode: 'manual', lastSpeaker: 2 })).toBe(2)
    expect(chooseSpeaker({ ...base, mode: 'manual', requested: 9 })).toBe(1)
    // The pick wins in any mode ("Let … speak").
    expect(chooseSpeaker({ ...base, mode: 'turns', lastSpeaker: 1, requested: 3 })).toBe(3)
  })
})

describe('the speaker’s own name', () => {
  it('is taken off the start of a reply, streamed in pieces or whole', () => {
    expect(stripOwnName('**Bran:** The river.', 'Bran')).toBe('The river.')
    expect(stripOwnName('Brandy, please.', 'Bran')).toBe('Brandy, please.')
    const stripper = createNameStripper('Bran')
    const out = ['Br', 'an', ':', ' ', 'The', ' river.'].map((p) => stripper.push(p)).join('') + stripper.flush()
    expect(out).toBe('The river.')
    const plain = createNameStripper('Bran')
    expect(['Hm', '.'].map((p) => plain.push(p)).join('') + plain.flush()).toBe('Hm.')
  })

  it('the scene note names the others with their public introduction only', () => {
    const note = sceneNote([{ name: 'Bran', introduction: 'A quiet ferryman.' }])
    expect(note).toContain('- Bran: A quiet ferryman.')
    expect(sceneNote([])).toBe('')
  })
})

describe('memory in a scene', () => {
  it('names the speaker of each reply', () => {
    const [, user] = summaryPrompt({
      characterName: 'Alda',
      userName: 'wren',
      note: '',
      messages: [
        { author: 'user', content: 'Hello both.' },
        { author: 'assistant', content: 'Welcome.', speaker: 'Alda' },
        { author: 'assistant', content: 'Hm.', speaker: 'Bran' },
      ],
    })
    expect(user?.content).toContain('wren: Hello both.\n\nAlda: Welcome.\n\nBran: Hm.')
  })

  it('is the memory of a role-play with every character who spoke, not only the first', () => {
    const messages = [{ author: 'assistant' as const, content: 'Hm.', speaker: 'Bran' }]
    const [scene] = summaryPrompt({
      characterName: 'Alda',
      userName: 'wren',
      note: '',
      messages,
      sceneNames: ['Alda', 'Bran'],
    })
    expect(scene?.content).toContain('a role-play between wren and Alda and Bran.')
    const [three] = summaryPrompt({
      characterName: 'Alda',
      userName: 'wren',
      note: '',
      messages,
      sceneNames: ['Bran', 'Cai'],
    })
    expect(three?.content).toContain('between wren and Alda, Bran, and Cai.')
    const [alone] = summaryPrompt({ characterName: 'Alda', userName: 'wren', note: '', messages: [] })
    expect(alone?.content).toContain('a role-play between wren and Alda.')
  })
})
