import { describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS, checkCardParts, jsonBytes, tagKey } from './characters.ts'

describe('character limits shared by the form and the server', () => {
  it('compares tag names without case, width or spacing', () => {
    expect(tagKey(' Slice  of\tLIFE ')).toBe('slice of life')
    expect(tagKey('ＳＣＩ-ＦＩ')).toBe('sci-fi')
    expect(tagKey('Fantasy')).toBe(tagKey('fantasy'))
    expect(tagKey('Fantasy')).not.toBe(tagKey('Fantasie'))
  })

  it('checks the lorebook’s entries and size and the card extras’ size', () => {
    const entries = (n: number) => Array.from({ length: n }, () => ({ keys: [], content: '' }))
    expect(
      checkCardParts({ lorebook: { entries: entries(CHARACTER_LIMITS.lorebookEntries) }, cardExtras: {} }),
    ).toEqual([])
    expect(
      checkCardParts({ lorebook: { entries: entries(CHARACTER_LIMITS.lorebookEntries + 1) }, cardExtras: null }),
    ).toEqual([{ path: 'lorebook', code: 'too_many', limit: CHARACTER_LIMITS.lorebookEntries }])
    const big = 'x'.repeat(CHARACTER_LIMITS.lorebookBytes)
    expect(checkCardParts({ lorebook: { entries: [{ content: big }] }, cardExtras: { systemPrompt: big } })).toEqual([
      { path: 'lorebook', code: 'too_large', limit: CHARACTER_LIMITS.lorebookBytes },
      { path: 'cardExtras', code: 'too_large', limit: CHARACTER_LIMITS.cardExtrasBytes },
    ])
  })

  it('weighs JSON in UTF-8 bytes, as the server reads the part', () => {
    expect(jsonBytes({ a: 'é' })).toBe(Buffer.byteLength(JSON.stringify({ a: 'é' })))
    expect(jsonBytes('日本')).toBe(8)
  })
})
