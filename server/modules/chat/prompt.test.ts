import { describe, expect, it } from 'vitest'
import { countMessageTokens, countTokens } from '#server/modules/models/tokens.ts'
import { CONTINUE_TURN, INSTRUCTIONS_CLOSE, INSTRUCTIONS_OPEN, shapeMessages } from './message-shaping.ts'
import {
  buildPrompt,
  type Character,
  contextWindow,
  type HistoryMessage,
  replaceMacros,
  shapingReserve,
  systemPromptOf,
  truncateToTokens,
} from './prompt.ts'

const character: Character = {
  name: 'Aria',
  description: '{{char}} captains the Gull.',
  personality: 'Bold.',
  scenario: '{{user}} stowed away on <BOT>’s ship.',
  introduction: 'A captain of the northern seas.',
  exampleDialogue: '{{user}}: Who are you?\n{{char}}: Your captain.',
}

function conversation(n: number, words = 40): HistoryMessage[] {
  return Array.from({ length: n }, (_, i) => {
    const content = `#${i + 1} ${'salt and spray '.repeat(words / 3).trim()}`
    return { id: i + 1, author: i % 2 ? 'assistant' : 'user', content, tokens: countTokens(content) }
  })
}

describe('macros', () => {
  it('replaces {{char}}, {{user}}, <BOT> and <USER> in any case and spacing, and nothing else', () => {
    expect(
      replaceMacros('{{char}} {{Char}} {{ CHAR }} <BOT> <bot> {{user}} {{USER}} <User> {{other}} <b>', {
        char: 'Aria',
        user: 'Sam',
      }),
    ).toBe('Aria Aria Aria Aria Aria Sam Sam Sam {{other}} <b>')
  })

  it('inserts names literally, even with $ patterns', () => {
    expect(replaceMacros('Hi {{user}}', { char: 'A', user: "$& $1 $$'" })).toBe("Hi $& $1 $$'")
  })

  it('builds the system prompt from the character with every macro filled in', () => {
    const text = systemPromptOf(character, 'Sam', 'Sam owes Aria a favour.')
    expect(text).toContain('You are Aria')
    expect(text).toContain('## Aria\nAria captains the Gull.')
    expect(text).toContain('Sam stowed away on Aria’s ship.')
    expect(text).toContain('Sam: Who are you?\nAria: Your captain.')
    expect(text).toContain('Sam owes Aria a favour.')
    expect(text).not.toMatch(/\{\{|<bot>|<user>/i)
    // Empty parts leave no empty headings.
    expect(systemPromptOf({ ...character, scenario: '', exampleDialogue: '' }, 'Sam', '')).not.toMatch(
      /Scenario|Example|memory/,
    )
  })
})

describe('context window', () => {
  it('is the plan memory, capped by the model, with a quarter (at most 1024) kept for the reply', () => {
    expect(contextWindow(4, 128_000)).toEqual({ windowTokens: 4000, replyReserveTokens: 1000, budgetTokens: 3000 })
    expect(contextWindow(32, 128_000)).toEqual({ windowTokens: 32_000, replyReserveTokens: 1024, budgetTokens: 30_976 })
    expect(contextWindow(128, 8192)).toEqual({ windowTokens: 8192, replyReserveTokens: 1024, budgetTokens: 7168 })
  })
})

describe('buildPrompt', () => {
  const base = { character, userName: 'Sam', memoryNote: '', olderExist: false }

  it.each([
    [4, 128_000],
    [16, 128_000],
    [32, 128_000],
    [32, 4096],
  ])('memory %iK on a %i-token model: the newest messages that fit, in order, within budget', (memoryK, ctx) => {
    const history = conversation(3000)
    const { budgetTokens } = contextWindow(memoryK, ctx)
    // Unshaped (system-anywhere keeps the turns as they are): the picking itself.
    const prompt = buildPrompt({ ...base, history, budgetTokens, promptStyle: 'system-anywhere' })
    const [system, ...rest] = prompt.messages
    expect(system?.role).toBe('system')
    expect(rest.map((m) => m.content)).toEqual(history.slice(-rest.length).map((m) => m.content))
    expect(prompt.included.map((m) => m.id)).toEqual(history.slice(-rest.length).map((m) => m.id))
    // The count is the real one, and one more message would not have fitted beside what shaping may add.
    expect(prompt.usedTokens).toBe(countMessageTokens(prompt.messages))
    expect(prompt.usedTokens + shapingReserve('Aria')).toBeLessThanOrEqual(budgetTokens)
    const next = history[history.length - rest.length - 1] as HistoryMessage
    expect(
      prompt.usedTokens +
        shapingReserve('Aria') +
        countMessageTokens([{ role: next.author, content: next.content }]) -
        3,
    ).toBeGreaterThan(budgetTokens)
    expect(prompt.trimmed).toBe(true)
    // Strict (the default): the same messages, shaped, still within budget and counted exactly.
    const strict = buildPrompt({ ...base, history, budgetTokens })
    expect(strict.included).toEqual(prompt.included)
    expect(strict.messages).toEqual(
      shapeMessages({ system: String(system?.content), turns: rest, postHistory: '', characterName: 'Aria' }),
    )
    expect(strict.usedTokens).toBe(countMessageTokens(strict.messages))
    expect(strict.usedTokens).toBeLessThanOrEqual(budgetTokens)
  })

  it('keeps more messages for a bigger plan', () => {
    const history = conversation(4000)
    const sizes = [4, 16, 32, 128].map(
      (k) => buildPrompt({ ...base, history, budgetTokens: contextWindow(k, 200_000).budgetTokens }).included.length,
    )
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b))
    expect(new Set(sizes).size).toBe(4)
  })

  it('takes everything when it fits, and says so', () => {
    const history = conversation(6)
    const prompt = buildPrompt({ ...base, history, budgetTokens: 30_000 })
    expect(prompt.included).toHaveLength(6)
    expect(prompt.trimmed).toBe(false)
    expect(buildPrompt({ ...base, history, budgetTokens: 30_000, olderExist: true }).trimmed).toBe(true)
  })

  it('always carries the newest message, even when it alone is too big', () => {
    const history = conversation(3, 3000)
    const prompt = buildPrompt({ ...base, history, budgetTokens: 500 })
    expect(prompt.included.map((m) => m.id)).toEqual([3])
  })

  it('keeps the system prompt within half the budget: examples go, then the introduction, then it is cut', () => {
    const long = { ...character, exampleDialogue: 'example '.repeat(2000), introduction: 'intro '.repeat(2000) }
    const mid = buildPrompt({ ...base, character: long, history: conversation(2), budgetTokens: 6000 })
    const midSystem = String(mid.messages[0]?.content)
    expect(midSystem).not.toContain('example example')
    expect(midSystem).toContain('intro intro')
    const small = buildPrompt({ ...base, character: long, history: conversation(2), budgetTokens: 1000 })
    const smallSystem = String(small.messages[0]?.content)
    expect(smallSystem).not.toContain('intro intro')
    expect(smallSystem).toContain('captains the Gull')
    const huge = { ...character, description: 'lore '.repeat(5000) }
    const cut = buildPrompt({ ...base, character: huge, history: conversation(2), budgetTokens: 1000 })
    expect(countMessageTokens([cut.messages[0] as { role: string; content: string }]) - 3).toBeLessThanOrEqual(500)
    expect(cut.included.length).toBeGreaterThan(0)
  })

  it("uses the card's own system prompt ({{original}} keeps ours) and post-history instructions, counted", () => {
    const history = conversation(4)
    const own = buildPrompt({
      ...base,
      character: { ...character, systemPrompt: 'Narrate as {{char}} in verse. {{original}}' },
      history,
      budgetTokens: 30_000,
    })
    const system = String(own.messages[0]?.content)
    expect(system.startsWith('Narrate as Aria in verse. You are Aria, in an ongoing role-play with Sam.')).toBe(true)
    const replaced = buildPrompt({
      ...base,
      character: { ...character, systemPrompt: 'Only {{char}}.' },
      history,
      budgetTokens: 30_000,
    })
    expect(String(replaced.messages[0]?.content)).not.toContain('You are Aria')

    const after = buildPrompt({
      ...base,
      character: { ...character, postHistoryInstructions: '{{original}}Keep {{user}} on the ship.' },
      history,
      budgetTokens: 30_000,
    })
    // Strict templates take no late system message: the instructions close the last user turn.
    expect(after.messages.at(-1)).toEqual({
      role: 'user',
      content: `${CONTINUE_TURN}\n\n${INSTRUCTIONS_OPEN}\nKeep Sam on the ship.\n${INSTRUCTIONS_CLOSE}`,
    })
    expect(after.messages.filter((m) => m.role === 'system')).toHaveLength(1)
    expect(after.usedTokens).toBe(countMessageTokens(after.messages))
    expect(after.included).toHaveLength(4)
    const anywhere = buildPrompt({
      ...base,
      character: { ...character, postHistoryInstructions: 'Keep {{user}} on the ship.' },
      history,
      budgetTokens: 30_000,
      promptStyle: 'system-anywhere',
    })
    expect(anywhere.messages.at(-1)).toEqual({ role: 'system', content: 'Keep Sam on the ship.' })
    expect(anywhere.usedTokens).toBe(countMessageTokens(anywhere.messages))
  })

  it('adds the lore whose keys appear in the conversation, counted, and drops it before cutting the text', () => {
    const lorebook = {
      extensions: {},
      entries: [
        {
          keys: ['spray'],
          secondaryKeys: [],
          content: 'Sea spray burns the eyes of {{user}}.',
          enabled: true,
          insertionOrder: 1,
          useRegex: false,
          extensions: {},
        },
        {
          keys: ['kraken'],
          secondaryKeys: [],
          content: 'The kraken sleeps.',
          enabled: true,
          insertionOrder: 2,
          useRegex: false,
          extensions: {},
        },
      ],
    }
    const history = conversation(4)
    const prompt = buildPrompt({ ...base, character: { ...character, lorebook }, history, budgetTokens: 30_000 })
    const system = String(prompt.messages[0]?.content)
    expect(system).toContain('## Lore\nSea spray burns the eyes of Sam.')
    expect(system).not.toContain('kraken')
    expect(prompt.usedTokens).toBe(countMessageTokens(prompt.messages))

    // A description that fits in half of 1000 tokens alone, but not with the lore (nor examples or introduction).
    const systemTokens = (n: number, withLore: boolean) =>
      countMessageTokens([
        {
          role: 'system',
          content: systemPromptOf(
            { ...character, description: 'tale '.repeat(n) },
            'Sam',
            '',
            { examples: false, introduction: false, lore: withLore },
            { before: [], after: ['Sea spray burns the eyes of Sam.'], tokens: 0 },
          ),
        },
      ]) - 3
    let n = 100
    while (systemTokens(n + 1, false) <= 500) n++
    expect(systemTokens(n, true)).toBeGreaterThan(500)
    const big = { ...character, description: 'tale '.repeat(n), lorebook }
    const tight = buildPrompt({ ...base, character: big, history, budgetTokens: 1000 })
    expect(String(tight.messages[0]?.content)).not.toContain('Sea spray')
    expect(String(tight.messages[0]?.content)).toContain('tale tale')
  })

  it('puts the memory note in the system prompt and counts it', () => {
    const history = conversation(200)
    const without = buildPrompt({ ...base, history, budgetTokens: 3000 })
    const withNote = buildPrompt({ ...base, history, budgetTokens: 3000, memoryNote: 'note '.repeat(300) })
    expect(String(withNote.messages[0]?.content)).toContain('note note')
    expect(withNote.included.length).toBeLessThan(without.included.length)
  })
})

describe('helpers', () => {
  it('truncates to a token count', () => {
    const text = 'the quick brown fox jumps over the lazy dog '.repeat(50)
    const cut = truncateToTokens(text, 37)
    expect(countTokens(cut)).toBeLessThanOrEqual(37)
    expect(countTokens(text.slice(0, cut.length + 5))).toBeGreaterThan(37)
    expect(truncateToTokens('short', 100)).toBe('short')
  })
})
