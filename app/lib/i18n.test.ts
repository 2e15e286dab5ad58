import i18next, { type i18n as I18n } from 'i18next'
import { describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'
import { createI18n } from './i18n.ts'

// The keys here are not the app's (which the `t` types list): call through a plain signature.
const translate = (instance: I18n, key: string, options: object) =>
  (instance.t as unknown as (key: string, options: object) => string)(key, options)

describe('createI18n', () => {
  // Our cached `number` formatter must write exactly what i18next's own one writes, in every locale,
  // or the server and the browser (and pages before and after the change) would disagree.
  it('formats {{count, number}} as i18next does', () => {
    const values = [0, 1, 2, 5, 21, 1234, 8703, 1234567.891, -42]
    for (const locale of LOCALES) {
      const resources = { [locale]: { common: { n: '{{count, number}} x', v: '{{value, number}}' } } }
      const ours = createI18n(locale, resources)
      const reference = i18next.createInstance()
      void reference.init({
        lng: locale,
        lowerCaseLng: true,
        resources,
        defaultNS: 'common',
        initAsync: false,
        interpolation: { escapeValue: false },
      })
      for (const value of values) {
        expect(translate(ours, 'n', { count: value })).toBe(translate(reference, 'n', { count: value }))
        expect(translate(ours, 'v', { value })).toBe(translate(reference, 'v', { value }))
      }
    }
  })
})
