import { describe, expect, it } from 'vitest'
import type { Lorebook } from '#contracts/characters.ts'
import { countMessageTokens, countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
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

// These tests call the synchronous counting code directly; the app awaits this on its async paths.
await tokenizerReady()

const character: Character = {
  name: 'Aria',
  description: '{{char}} captains the Gull.',
  personality: 'Bold.',
  scenario: '{{user}} stowed away on <BOT>’s ship.',
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

  it('keeps the system prompt within half the budget: examples go, then the longest texts are shortened', () => {
    const long = { ...character, exampleDialogue: 'example '.repeat(4000) }
    const mid = buildPrompt({ ...base, character: long, history: conversation(2), budgetTokens: 6000 })
    const midSystem = String(mid.messages[0]?.content)
    expect(midSystem).not.toContain('example example')
    expect(midSystem).toContain('Aria captains the Gull.')
    const huge = { ...character, description: 'lore '.repeat(5000) }
    const cut = buildPrompt({ ...base, character: huge, history: conversation(2), budgetTokens: 1000 })
    const cutSystem = String(cut.messages[0]?.content)
    expect(countMessageTokens([cut.messages[0] as { role: string; content: string }]) - 3).toBeLessThanOrEqual(500)
    // The long description is cut; the short personality and scenario stay whole, and so does the opening.
    expect(cutSystem).toContain('lore lore')
    expect(cutSystem).toContain('## Personality\nBold.')
    expect(cutSystem).toContain('Sam stowed away on Aria’s ship.')
    expect(cutSystem.startsWith('You are Aria')).toBe(true)
    expect(cut.included.length).toBeGreaterThan(0)
  })

  it('never sends the introduction (creator notes), whatever the room', () => {
    const withNotes = { ...character, introduction: 'Creator notes: for people only.' } as Character
    const prompt = buildPrompt({ ...base, character: withNotes, history: conversation(4), budgetTokens: 100_000 })
    expect(JSON.stringify(prompt.messages)).not.toContain('Creator notes')
    expect(JSON.stringify(prompt.messages)).not.toContain('Introduction')
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

  const loreEntry = (keys: string[], content: string, more: Partial<Lorebook['entries'][number]> = {}) => ({
    keys,
    secondaryKeys: [],
    content,
    enabled: true,
    insertionOrder: 1,
    useRegex: false,
    extensions: {},
    ...more,
  })

  it('adds the lore whose keys appear in the conversation, counted, and shortens the description before dropping it', () => {
    const lorebook: Lorebook = {
      extensions: {},
      entries: [
        loreEntry(['spray'], 'Sea spray burns the eyes of {{user}}.'),
        loreEntry(['kraken'], 'The kraken sleeps.', { insertionOrder: 2 }),
        loreEntry([], 'It is always winter on the Gull.', { constant: true }),
      ],
    }
    const history = conversation(4)
    const prompt = buildPrompt({ ...base, character: { ...character, lorebook }, history, budgetTokens: 30_000 })
    const system = String(prompt.messages[0]?.content)
    expect(system).toContain('## Lore\nSea spray burns the eyes of Sam.\n\nIt is always winter on the Gull.')
    expect(system).not.toContain('kraken')
    expect(prompt.usedTokens).toBe(countMessageTokens(prompt.messages))

    // A description that fills half of 1000 tokens alone: it is shortened, the lore stays.
    const big = { ...character, description: 'tale '.repeat(2000), lorebook }
    const tight = buildPrompt({ ...base, character: big, history, budgetTokens: 1000 })
    const tightSystem = String(tight.messages[0]?.content)
    expect(tightSystem).toContain('Sea spray burns the eyes of Sam.')
    expect(tightSystem).toContain('It is always winter on the Gull.')
    expect(tightSystem).toContain('tale tale')
    expect(countMessageTokens([tight.messages[0] as { role: string; content: string }]) - 3).toBeLessThanOrEqual(500)
    expect(tight.usedTokens).toBeLessThanOrEqual(1000)
  })

  it('places decorated lore: @@position in its section, @@depth after the conversation, counted', () => {
    const lorebook: Lorebook = {
      extensions: {},
      entries: [
        loreEntry(['spray'], '@@position before_desc\nThe Gull is a brig.'),
        loreEntry(['spray'], '@@position after_desc\n{{char}} has one eye.'),
        loreEntry(['spray'], '@@position personality\nShe hums when angry.'),
        loreEntry(['spray'], '@@position scenario\nA storm is near.'),
        loreEntry(['spray'], '@@depth 0\n@@role system\nEnd every reply with the ship’s log.'),
        loreEntry(['spray'], '@@risu_only 1\n@@@dont_activate\nNever sent.'),
      ],
    }
    const history = conversation(4)
    const input = { ...base, character: { ...character, lorebook }, history, budgetTokens: 30_000 }
    const prompt = buildPrompt(input)
    const system = String(prompt.messages[0]?.content)
    expect(system).toContain(
      '## World and lore\nThe Gull is a brig.\n\n## Aria\nAria captains the Gull.\n\nAria has one eye.',
    )
    expect(system).toContain('## Personality\nBold.\n\nShe hums when angry.')
    expect(system).toContain('## Scenario\nSam stowed away on Aria’s ship.\n\nA storm is near.')
    expect(system).not.toContain('ship’s log')
    expect(JSON.stringify(prompt.messages)).not.toMatch(/@@|Never sent/)
    // Strict: in the delimited block that closes the last user turn; counted.
    expect(String(prompt.messages.at(-1)?.content)).toContain(
      `${INSTRUCTIONS_OPEN}\nEnd every reply with the ship’s log.\n${INSTRUCTIONS_CLOSE}`,
    )
    expect(prompt.usedTokens).toBe(countMessageTokens(prompt.messages))
    // Before the card's post-history instructions; a last system message where the template allows it.
    const anywhere = buildPrompt({
      ...input,
      character: { ...input.character, postHistoryInstructions: 'Keep it short.' },
      promptStyle: 'system-anywhere',
    })
    expect(anywhere.messages.at(-1)).toEqual({
      role: 'system',
      content: 'End every reply with the ship’s log.\n\nKeep it short.',
    })
    expect(anywhere.usedTokens).toBe(countMessageTokens(anywhere.messages))
    // A character with no personality has no personality section: the entry goes with the other lore.
    const plain = buildPrompt({ ...input, character: { ...input.character, personality: '' } })
    expect(String(plain.messages[0]?.content)).toContain('## Lore\nShe hums when angry.')
  })

  it('counts the character’s messages for @@activate_only_after and @@activate_only_every', () => {
    const lorebook: Lorebook = {
      extensions: {},
      entries: [
        loreEntry([], '@@activate_only_after 2\nThe second act.', { constant: true }),
        loreEntry([], '@@activate_only_every 2\nA bell rings.', { constant: true }),
      ],
    }
    const systemOf = (history: HistoryMessage[], more: object = {}) =>
      String(
        buildPrompt({ ...base, character: { ...character, lorebook }, history, budgetTokens: 30_000, ...more })
          .messages[0]?.content,
      )
    // conversation(n): user, assistant, user... so n messages hold floor(n / 2) of the character's.
    expect(systemOf(conversation(3))).not.toContain('The second act.')
    expect(systemOf(conversation(3))).not.toContain('A bell rings.')
    expect(systemOf(conversation(5))).toContain('The second act.')
    expect(systemOf(conversation(5))).toContain('A bell rings.')
    expect(systemOf(conversation(7))).not.toContain('A bell rings.')
    // Older messages not loaded: the caller's count of them adds to those loaded.
    expect(systemOf(conversation(3), { olderExist: true, olderCharacterMessages: 0 })).not.toContain('The second act.')
    expect(systemOf(conversation(3), { olderExist: true, olderCharacterMessages: 1 })).toContain('The second act.')
    expect(systemOf(conversation(3), { olderExist: true, olderCharacterMessages: 2 })).not.toContain('A bell rings.')
    // Older messages not loaded and no count given: the count is unknown, the decorators are ignored.
    expect(systemOf(conversation(3), { olderExist: true })).toContain('The second act.')
  })

  it('puts the memory note in the system prompt and counts it', () => {
    const history = conversation(200)
    const without = buildPrompt({ ...base, history, budgetTokens: 3000 })
    const withNote = buildPrompt({ ...base, history, budgetTokens: 3000, memoryNote: 'note '.repeat(300) })
    expect(String(withNote.messages[0]?.content)).toContain('note note')
    expect(withNote.included.length).toBeLessThan(without.included.length)
  })

  it("puts the persona's description in its own {{user}} section, macros filled in, counted", () => {
    const history = conversation(200)
    const persona = '{{user}} is a stowaway who fears {{char}}. '.repeat(20).trim()
    const without = buildPrompt({ ...base, history, budgetTokens: 3000 })
    const withPersona = buildPrompt({ ...base, history, budgetTokens: 3000, persona })
    const system = String(withPersona.messages[0]?.content)
    expect(system).toContain('## Sam\nSam is a stowaway who fears Aria.')
    // After the character's sections, before the memory note.
    const noted = String(
      buildPrompt({ ...base, history, budgetTokens: 3000, persona, memoryNote: 'A note.' }).messages[0]?.content,
    )
    expect(noted.indexOf('## Scenario')).toBeLessThan(noted.indexOf('## Sam'))
    expect(noted.indexOf('## Sam')).toBeLessThan(noted.indexOf('A note.'))
    expect(withPersona.included.length).toBeLessThan(without.included.length)
    // No description, no section.
    expect(String(without.messages[0]?.content)).not.toContain('## Sam')
  })

  it("shortens a long persona description with the character's texts, longest first", () => {
    const persona = 'scar '.repeat(3000)
    const cut = buildPrompt({ ...base, persona, history: conversation(2), budgetTokens: 1000 })
    const system = String(cut.messages[0]?.content)
    expect(countMessageTokens([cut.messages[0] as { role: string; content: string }]) - 3).toBeLessThanOrEqual(500)
    expect(system).toContain('## Sam\nscar scar')
    expect(system).toContain('Aria captains the Gull.')
    expect(system).toContain('## Personality\nBold.')
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
