import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Lorebook } from '#contracts/characters.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import { activeLore, DEFAULT_SCAN_DEPTH } from './lorebook.ts'

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

const lore = (b: Lorebook | null, messages: string[], cap = 10_000) => activeLore(b, messages, cap)
const all = (l: ReturnType<typeof activeLore>) => [...l.before, ...l.after]

describe('lorebook activation', () => {
  const harbour = entry(['harbour', 'Port Gull'], 'Port Gull is a smugglers’ harbour under the cliffs.')

  it('adds an entry when one of its keys appears, ignoring case, and nothing otherwise', () => {
    expect(all(lore(book([harbour]), ['We sail for the HARBOUR at dawn.']))).toEqual([harbour.content])
    expect(all(lore(book([harbour]), ['Have you been to port gull?']))).toEqual([harbour.content])
    expect(lore(book([harbour]), ['We stay inland.'])).toEqual({ before: [], after: [], tokens: 0 })
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
    expect(result.before).toEqual([c.content])
    expect(result.after).toEqual([b.content])
    expect(result.tokens).toBe(fits)
    // The caller's cap wins over a larger book budget.
    expect(all(lore(book([a, b, c], { tokenBudget: 100_000 }), ['storm'], costOf(b)))).toEqual([b.content])
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
