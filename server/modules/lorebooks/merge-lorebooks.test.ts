import { describe, expect, it } from 'vitest'
import type { Lorebook } from '#contracts/characters.ts'
import { DEFAULT_SCAN_DEPTH } from '#server/modules/chat/lorebook.ts'
import { mergeLorebooks } from './merge-lorebooks.ts'

const entry = (content: string, enabled = true) => ({
  keys: [content],
  secondaryKeys: [],
  content,
  enabled,
  insertionOrder: 1,
  useRegex: false,
  extensions: {},
})
const book = (contents: string[], settings: Partial<Lorebook> = {}): Lorebook => ({
  extensions: {},
  entries: contents.map((c) => entry(c)),
  ...settings,
})

describe('mergeLorebooks', () => {
  it('is the card’s own book (or none) when nothing is attached', () => {
    const own = book(['a'], { tokenBudget: 10 })
    expect(mergeLorebooks(own, [])).toBe(own)
    expect(mergeLorebooks(null, [])).toBeNull()
  })

  it('puts the card’s entries first, then each attached book’s enabled ones in order', () => {
    const own = book(['own'], { name: 'Card', scanDepth: 2 })
    own.entries.push(entry('own-off', false))
    const first = book(['first'], { name: 'First' })
    first.entries.push(entry('first-off', false))
    const merged = mergeLorebooks(own, [first, book(['second'])])
    // The card's own disabled entry stays (the prompt skips it); attached disabled ones are left out.
    expect(merged?.entries.map((e) => e.content)).toEqual(['own', 'own-off', 'first', 'second'])
    expect(merged?.name).toBe('Card')
    // The deepest scan asked, a book without one counting as the chat's default.
    expect(merged?.scanDepth).toBe(Math.max(2, DEFAULT_SCAN_DEPTH))
    expect(merged?.tokenBudget).toBeUndefined()
  })

  it('sums the token budgets only when every book has one, and takes the first book’s name without a card book', () => {
    expect(mergeLorebooks(book([], { tokenBudget: 100 }), [book([], { tokenBudget: 50 })])?.tokenBudget).toBe(150)
    expect(mergeLorebooks(book([], { tokenBudget: 100 }), [book([])])?.tokenBudget).toBeUndefined()
    const merged = mergeLorebooks(null, [book(['x'], { name: 'World', scanDepth: 9 }), book(['y'], { scanDepth: 3 })])
    expect(merged).toMatchObject({ name: 'World', scanDepth: 9 })
    expect(merged?.entries.map((e) => e.content)).toEqual(['x', 'y'])
  })
})
