import { describe, expect, it } from 'vitest'
import { majorText, parseMajorAmount } from './amounts.ts'

describe('amounts in major units', () => {
  it('reads what an operator types as minor units of the currency', () => {
    expect(parseMajorAmount('4.99', 'USD')).toBe(499)
    expect(parseMajorAmount('4,5', 'EUR')).toBe(450)
    expect(parseMajorAmount(' 5 ', 'USD')).toBe(500)
    expect(parseMajorAmount('500', 'JPY')).toBe(500)
    expect(parseMajorAmount('1.234', 'KWD')).toBe(1234)
  })

  it('refuses what is not a plain positive amount of that currency', () => {
    for (const text of ['', '0', '0.00', '-1', '4.999', '1e3', 'abc', '4.5', '1.2.3'])
      expect([text, parseMajorAmount(text, text === '4.5' ? 'JPY' : 'USD')]).toEqual([text, null])
  })

  it('writes minor units back as the field’s text', () => {
    expect(majorText(999, 'USD')).toBe('9.99')
    expect(majorText(500, 'JPY')).toBe('500')
  })
})
