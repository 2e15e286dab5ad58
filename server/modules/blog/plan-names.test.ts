import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'

const root = path.resolve(import.meta.dirname, '../../..')
const article = (locale: string) =>
  readFileSync(path.join(root, 'content/blog/how-memory-and-diamonds-work', `${locale}.md`), 'utf8')
const freePlan = (locale: string) =>
  (JSON.parse(readFileSync(path.join(root, 'locales', locale, 'pricing.json'), 'utf8')) as { plans: { free: string } })
    .plans.free

// The plans table of "How memory and diamonds work" names the free plan as the pricing page does.
describe('the memory and diamonds article', () => {
  it.each(LOCALES)('names the free plan in %s as the pricing page does', (locale) => {
    const text = article(locale)
    const firstRow = text.split('\n').find((line) => /^\| .+ \| 4K /.test(line))
    expect(firstRow?.split('|')[1]?.trim()).toBe(freePlan(locale))
    if (locale !== 'en') expect(text).not.toMatch(/\bFree\b/)
  })
})
