import { describe, expect, it } from 'vitest'
import { parseDiamonds } from './diamonds.ts'

describe('parseDiamonds', () => {
  it('reads whole numbers, with group separators and in Arabic-Indic digits', () => {
    expect(parseDiamonds('120')).toBe(120)
    expect(parseDiamonds(' 1 000 ')).toBe(1000)
    expect(parseDiamonds('1,000,000')).toBe(1_000_000)
    expect(parseDiamonds('1.000')).toBe(1000)
    expect(parseDiamonds('١٢٠')).toBe(120)
    expect(parseDiamonds('۱۲۰')).toBe(120)
  })

  it('refuses zero, negatives, fractions, words and more than one action may move', () => {
    for (const text of ['', '0', '-5', '1.5', '1,5', '1.5e3', 'ten', '1000001', '12a', '1,0000'])
      expect([text, parseDiamonds(text)]).toEqual([text, null])
  })
})
