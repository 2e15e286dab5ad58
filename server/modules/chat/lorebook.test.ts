import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Lorebook } from '#contracts/characters.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { activeLore, DEFAULT_SCAN_DEPTH, noLore } from './lorebook.ts'

// These tests call the synchronous counting code directly; the app awaits this on its async paths.
await tokenizerReady()

type Entry = Lorebook['entries'][number]

const entry = (keys: string[], content: string, more: Partial<Entry> = {}): Entry => ({
  keys,
  secondaryKeys: [],
  content,
  enabled: true,
  insertionOrder: 100,
  useRegex: false,
  extensions: {},
  ...more,
})

const book = (entries: Entry[], more: Partial<Lorebook> = {}): Lorebook => ({ extensions: {}, entries, ...more })

const lore = (b: Lorebook | null, messages: string[], cap = 10_000, characterMessages?: number) =>
  activeLore(b, { scanned: messages, capTokens: cap, characterMessages })
const all = (l: ReturnType<typeof activeLore>) => [...Object.values(l.system).flat(), ...l.conversation]

describe('lorebook activation', () => {
  const harbour = entry(['harbour', 'Port Gull'], 'Port Gull is a smugglers’ harbour under the cliffs.')

  it('adds an entry when one of its keys appears, ignoring case, and nothing otherwise', () => {
    expect(all(lore(book([harbour]), ['We sail for the HARBOUR at dawn.']))).toEqual([harbour.content])
    expect(all(lore(book([harbour]), ['Have you been to port gull?']))).toEqual([harbour.content])
    expect(lore(book([harbour]), ['We stay inland.'])).toEqual(noLore())
    expect(lore(null, ['harbour']).tokens).toBe(0)
  })

  it('matches whole words in spaced scripts, anywhere in Chinese, Japanese, Korean and Thai', () => {
    const cat = entry(['cat'], 'The ship’s cat is called Pepper.')
    expect(all(lore(book([cat]), ['What category is this?']))).toEqual([])
    expect(all(lore(book([cat]), ['Where is the cat?']))).toEqual([cat.content])
    expect(all(lore(book([entry(['кот'], 'Кот Перец.')]), ['Где кот?']))).toEqual(['Кот Перец.'])
    expect(all(lore(book([entry(['кот'], 'Кот Перец.')]), ['Это который?']))).toEqual([])
    expect(all(lore(book([entry(['港口'], '海鸥港。')]), ['我们去港口吧']))).toEqual(['海鸥港。'])
    expect(all(lore(book([entry(['철수'], '철수는 선장이다.')]), ['철수가 왔어요']))).toEqual(['철수는 선장이다.'])
  })

  it('respects caseSensitive, selective secondary keys, disabled and constant entries', () => {
    const sensitive = entry(['Rose'], 'Rose is the first mate.', { caseSensitive: true })
    expect(all(lore(book([sensitive]), ['a rose in bloom']))).toEqual([])
    expect(all(lore(book([sensitive]), ['Ask Rose']))).toEqual([sensitive.content])

    const selective = entry(['map'], 'The map is forged.', { selective: true, secondaryKeys: ['forged', 'fake'] })
    expect(all(lore(book([selective]), ['Show me the map']))).toEqual([])
    expect(all(lore(book([selective]), ['Is the map a fake?']))).toEqual([selective.content])

    expect(all(lore(book([{ ...harbour, enabled: false }]), ['harbour']))).toEqual([])
    const always = entry([], 'It is winter.', { constant: true })
    expect(all(lore(book([always]), ['hello']))).toEqual(['It is winter.'])
  })

  it('treats regex keys as literal text (no pattern from a card runs on the server)', () => {
    const evil = entry(['(a+)+$'], 'Never shown unless the literal text appears.', { useRegex: true })
    const start = performance.now()
    expect(all(lore(book([evil]), [`${'a'.repeat(40)}!`]))).toEqual([])
    expect(performance.now() - start).toBeLessThan(1000)
    expect(all(lore(book([evil]), ['he typed (a+)+$ literally']))).toEqual([evil.content])
  })

  it('scans only the newest scanDepth messages', () => {
    const older = ['harbour', ...Array.from({ length: DEFAULT_SCAN_DEPTH }, (_, i) => `line ${i}`)]
    expect(all(lore(book([harbour]), older))).toEqual([])
    expect(all(lore(book([harbour], { scanDepth: DEFAULT_SCAN_DEPTH + 1 }), older))).toEqual([harbour.content])
  })

  it('keeps to the token budget, highest priority first, then writes in insertion order by position', () => {
    const a = entry(['storm'], 'A: storms come from the west.', { insertionOrder: 1, priority: 1 })
    const b = entry(['storm'], 'B: the lighthouse lamp burns whale oil.', { insertionOrder: 2, priority: 5 })
    const c = entry(['storm'], 'C: the keeper lost a brother at sea.', {
      insertionOrder: 0,
      priority: 3,
      position: 'before_char',
    })
    const costOf = (e: Entry) => countTokens(e.content) + 1
    const fits = costOf(b) + costOf(c)
    const result = lore(book([a, b, c], { tokenBudget: fits }), ['A storm is coming'])
    expect(result.system.before_desc).toEqual([c.content])
    expect(result.system.after_char).toEqual([b.content])
    expect(result.tokens).toBe(fits)
    // The caller's cap wins over a larger book budget.
    expect(all(lore(book([a, b, c], { tokenBudget: 100_000 }), ['storm'], costOf(b)))).toEqual([b.content])
  })

  it('takes constant entries first, then the matched ones by priority, then the highest insertion order', () => {
    const costOf = (e: Entry) => countTokens(e.content) + 1
    const rule = entry([], 'Rule: the tide turns at noon.', { constant: true, insertionOrder: 1 })
    const loud = entry(['storm'], 'Loud: thunder rolls over the bay.', { priority: 9, insertionOrder: 1 })
    const low = entry(['storm'], 'Low: the gulls fly inland.', { insertionOrder: 1 })
    const high = entry(['storm'], 'High: the keeper lights the lamp.', { insertionOrder: 50 })
    const entries = [low, high, loud, rule]
    // Room for the constant entry and one more: the constant one wins over a higher priority.
    expect(all(lore(book(entries), ['storm'], costOf(rule) + costOf(loud)))).toEqual([loud.content, rule.content])
    expect(all(lore(book(entries), ['storm'], costOf(rule)))).toEqual([rule.content])
    // Same priority: the higher insertion order stays (V3 spec: the lowest go first)...
    const three = costOf(rule) + costOf(loud) + costOf(high)
    expect(all(lore(book(entries), ['storm'], three)).sort()).toEqual([rule.content, loud.content, high.content].sort())
    // ...and the prompt lists them in insertion order, lowest first.
    const everything = lore(book(entries), ['storm'])
    expect(everything.system.after_char).toEqual([low.content, loud.content, rule.content, high.content])
  })

  it('never exceeds its budget, whatever the entries and text', () => {
    const words = ['storm', 'harbour', 'cat', 'Rose', '港口', 'map']
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            keys: fc.array(fc.constantFrom(...words), { maxLength: 3 }),
            content: fc.string({ minLength: 1, maxLength: 200 }),
            priority: fc.integer({ min: -5, max: 5 }),
            constant: fc.boolean(),
          }),
          { maxLength: 20 },
        ),
        fc.array(fc.constantFrom(...words, 'nothing', 'at all'), { maxLength: 10 }),
        fc.integer({ min: 0, max: 300 }),
        (entries, text, cap) => {
          const result = lore(
            book(entries.map((e, i) => entry(e.keys, e.content, { ...e, insertionOrder: i }))),
            [text.join(' ')],
            cap,
          )
          const spent = all(result).reduce((sum, content) => sum + countTokens(content) + 1, 0)
          expect(result.tokens).toBe(spent)
          expect(result.tokens).toBeLessThanOrEqual(cap)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('V3 decorators', () => {
  const e = (content: string, more: Partial<Entry> = {}) => entry(['storm'], content, more)

  it('never lets a decorator line reach the model, understood or not', () => {
    const raw =
      '@@depth 0\n@@risu_only 4\n@@@activate_only_after 0\n@@role system\n\nThe storm wall.\n@@ignore_on_max_context\nIt never moves.'
    const result = lore(book([e(raw)]), ['storm'])
    expect(all(result)).toEqual(['The storm wall.\n\nIt never moves.'])
    expect(JSON.stringify(result)).not.toContain('@@')
    // An entry that is only decorators adds nothing.
    expect(all(lore(book([e('@@depth 2\n@@position after_desc')]), ['storm']))).toEqual([])
  })

  it('@@dont_activate: never, even when constant or matched; @@activate: always, keys or not', () => {
    expect(all(lore(book([e('@@dont_activate\nHidden.')]), ['storm']))).toEqual([])
    expect(all(lore(book([e('@@dont_activate\nHidden.', { constant: true })]), ['storm']))).toEqual([])
    expect(all(lore(book([e('@@activate\nShown.')]), ['calm seas']))).toEqual(['Shown.'])
    expect(all(lore(book([e('@@dont_activate\n@@activate\nShown.')]), ['calm']))).toEqual(['Shown.'])
  })

  it('@@activate_only_after N: only once the character has written N messages', () => {
    const late = e('@@activate_only_after 3\nThe second act.', { constant: true })
    expect(all(lore(book([late]), ['storm'], 10_000, 2))).toEqual([])
    expect(all(lore(book([late]), ['storm'], 10_000, 3))).toEqual(['The second act.'])
    expect(all(lore(book([late]), ['storm'], 10_000, 9))).toEqual(['The second act.'])
    // Keys still count.
    expect(all(lore(book([{ ...late, constant: false }]), ['calm'], 10_000, 5))).toEqual([])
    // A count nobody knows: the decorator is ignored (V3 spec).
    expect(all(lore(book([late]), ['storm']))).toEqual(['The second act.'])
  })

  it('@@activate_only_every N: only when the count of the character’s messages is a multiple of N', () => {
    const every = e('@@activate_only_every 3\nA bell rings.', { constant: true })
    const at = (n: number) => all(lore(book([every]), ['hello'], 10_000, n)).length
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(at)).toEqual([1, 0, 0, 1, 0, 0, 1, 0])
    // 0 is no valid value: ignored, the entry behaves as if it had none.
    expect(
      all(lore(book([e('@@activate_only_every 0\nA bell rings.', { constant: true })]), ['x'], 10_000, 1)),
    ).toEqual(['A bell rings.'])
  })

  it('@@depth N: after the conversation, deepest first; deeper than the conversation: in the system prompt', () => {
    const d0 = e('@@depth 0\nStatus window.', { insertionOrder: 5 })
    const d2 = e('@@depth 2\nEconomy rules.', { insertionOrder: 9 })
    const plain = e('Plain lore.')
    const result = lore(book([d0, plain, d2]), ['one', 'two', 'storm'])
    expect(result.conversation).toEqual(['Economy rules.', 'Status window.'])
    expect(result.system.after_char).toEqual(['Plain lore.'])
    const short = lore(book([d0, e('@@depth 7\nToo deep.')]), ['storm'])
    expect(short.conversation).toEqual(['Status window.'])
    expect(short.system.after_char).toEqual(['Too deep.'])
  })

  it('@@position: before_desc, after_desc, personality, scenario; unknown values fall back to the entry', () => {
    const places = ['before_desc', 'after_desc', 'personality', 'scenario'] as const
    const result = lore(
      book([
        ...places.map((p) => e(`@@position ${p}\nAt ${p}.`)),
        e('@@position pt_custom\nNowhere special.', { position: 'before_char' }),
        // @@position wins over @@depth.
        e('@@depth 0\n@@position scenario\nScenario, not depth.'),
      ]),
      ['storm'],
    )
    expect(result.system.before_desc).toEqual(['At before_desc.', 'Nowhere special.'])
    expect(result.system.after_desc).toEqual(['At after_desc.'])
    expect(result.system.personality).toEqual(['At personality.'])
    expect(result.system.scenario).toEqual(['At scenario.', 'Scenario, not depth.'])
    expect(result.conversation).toEqual([])
  })

  it('uses a fallback (@@@) when the decorator before it is not understood, and only then', () => {
    const fallback = e('@@risu_only_thing 4\n@@@dont_activate\nHidden.')
    expect(all(lore(book([fallback]), ['storm']))).toEqual([])
    const understood = e('@@depth 0\n@@@dont_activate\nShown late.')
    expect(lore(book([understood]), ['storm']).conversation).toEqual(['Shown late.'])
    // Chains of fallbacks are read top to bottom; a bad value counts as not understood.
    const chain = e('@@agn_only 1\n@@@depth nope\n@@@position after_desc\n@@@dont_activate\nAfter desc.')
    expect(lore(book([chain]), ['storm']).system.after_desc).toEqual(['After desc.'])
  })

  it('@@scan_depth, @@additional_keys and @@exclude_keys narrow the match', () => {
    const near = e('@@scan_depth 1\nNear.')
    expect(all(lore(book([near]), ['storm', 'calm']))).toEqual([])
    expect(all(lore(book([near]), ['calm', 'storm']))).toEqual(['Near.'])
    const both = e('@@additional_keys lighthouse, lamp\nBoth.')
    expect(all(lore(book([both]), ['storm']))).toEqual([])
    expect(all(lore(book([both]), ['storm at the lighthouse']))).toEqual(['Both.'])
    const not = e('@@exclude_keys calm\n@@exclude_keys harbour\nNot in harbour.')
    expect(all(lore(book([not]), ['storm']))).toEqual(['Not in harbour.'])
    expect(all(lore(book([not]), ['storm in the harbour']))).toEqual([])
    expect(all(lore(book([not]), ['storm then calm']))).toEqual([])
  })
})
