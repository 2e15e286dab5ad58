import { describe, expect, it } from 'vitest'
import { formatDate, formatNumber, formatPrice, formatRating } from './format.ts'

describe('Intl formatting by locale', () => {
  it('formats numbers with each locale’s separators', () => {
    expect(formatNumber('en', 1234567.5)).toBe('1,234,567.5')
    expect(formatNumber('de', 1234567.5)).toBe('1.234.567,5')
    expect(formatNumber('fr', 1234567.5)).toMatch(/^1\s234\s567,5$/)
    expect(formatNumber('ar', 12)).toMatch(/^(١٢|12)$/)
  })

  it('formats ratings with one decimal and the locale’s separator', () => {
    expect(formatRating('en', 4)).toBe('4.0')
    expect(formatRating('en', 4.56)).toBe('4.6')
    expect(formatRating('de', 4.5)).toBe('4,5')
    expect(formatRating('fr', 3.25)).toBe('3,3')
  })

  it('formats prices from minor units, with the currency’s own decimals', () => {
    expect(formatPrice('en', 999, 'USD')).toBe('$9.99')
    expect(formatPrice('de', 999, 'EUR')).toMatch(/^9,99\s€$/)
    expect(formatPrice('ja', 1200, 'JPY')).toMatch(/^[￥¥]1,200$/)
  })

  it('formats dates in the locale’s words and order, the same on server and browser', () => {
    const date = '2026-03-05T23:30:00Z'
    expect(formatDate('en', date)).toBe('March 5, 2026')
    expect(formatDate('de', date)).toBe('5. März 2026')
    expect(formatDate('ja', date)).toBe('2026年3月5日')
  })
})
