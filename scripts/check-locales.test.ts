import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkLocales, checkProjectLocales } from './check-locales.ts'

const fixtures = path.resolve(import.meta.dirname, '..', 'tests', 'fixtures')

describe('locale check', () => {
  it('passes on the project locales', () => {
    expect(checkProjectLocales()).toEqual([])
  })

  it('catches every kind of problem in a deliberately broken fixture', () => {
    const problems = checkLocales({
      localesDir: path.join(fixtures, 'locales-broken'),
      sourceDirs: [path.join(fixtures, 'locales-broken-src')],
      identicalAllowed: {},
    })
    expect(problems).toEqual(
      expect.arrayContaining([
        'en/shop: "unusedThing" is not used in the code',
        'fr/shop: missing "errors.E2"',
        'fr/shop: extra "extra"',
        'fr/shop: "title" is still English ("Shop")',
        expect.stringMatching(/^fr\/shop: "greeting" placeholders/),
        // Arabic has six plural categories; one and other are not enough.
        'ar/shop: "items" needs plural forms few, many, one, other, two, zero, has one, other',
        'ja/orphan.json: namespace has no English source',
      ]),
    )
    // Japanese has one plural form, `other`, so `items_other` alone is right.
    expect(problems.filter((p) => p.startsWith('ja/shop'))).toEqual([])
    // Dynamic keys (`errors.${code}`) count as used.
    expect(problems.some((p) => p.includes('"errors.'))).toBe(problems.some((p) => p.includes('E2')))
  })

  it('allows reviewed identical values', () => {
    const problems = checkLocales({
      localesDir: path.join(fixtures, 'locales-broken'),
      identicalAllowed: { fr: { shop: ['title'] } },
    })
    expect(problems).not.toContain('fr/shop: "title" is still English ("Shop")')
  })
})
