import { readFileSync } from 'node:fs'
import path from 'node:path'
import i18next, { type TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import { altchaStrings } from './altcha-strings.ts'

const localesDir = path.resolve(import.meta.dirname, '../../../../locales')

function tFor(locale: Locale): TFunction<'auth'> {
  const auth = JSON.parse(readFileSync(path.join(localesDir, locale, 'auth.json'), 'utf8'))
  const instance = i18next.createInstance()
  void instance.init({
    lng: locale,
    lowerCaseLng: true,
    resources: { [locale]: { auth } },
    defaultNS: 'auth',
    initAsync: false,
    interpolation: { escapeValue: false },
  })
  return instance.getFixedT(locale, 'auth') as TFunction<'auth'>
}

describe('the human check widget’s texts', () => {
  const english = altchaStrings(tFor('en'))

  it('cover everything the proof-of-work widget shows, with its link in the footer', () => {
    expect(Object.keys(english).sort()).toEqual(
      [
        'ariaLinkLabel',
        'error',
        'expired',
        'footer',
        'label',
        'loading',
        'verificationRequired',
        'verified',
        'verifying',
        'waitAlert',
      ].sort(),
    )
    expect(english.footer).toBe(
      'Protected by <a href="https://altcha.org/" tabindex="-1" target="_blank" rel="noopener noreferrer" aria-label="ALTCHA (official website)">ALTCHA</a>',
    )
  })

  it.each(LOCALES.filter((locale) => locale !== 'en'))('are in %s, not English', (locale) => {
    const strings = altchaStrings(tFor(locale))
    for (const [key, value] of Object.entries(strings)) {
      expect(value, key).not.toBe(english[key])
      expect(value, key).not.toMatch(/\{\{|captcha\./)
    }
    expect(strings.footer).toContain('>ALTCHA</a>')
    expect(strings.footer).not.toContain('Protected by')
  })

  it('keeps the footer’s HTML to the one link', () => {
    expect(altchaStrings(tFor('ja')).footer).toBe(
      '<a href="https://altcha.org/" tabindex="-1" target="_blank" rel="noopener noreferrer" aria-label="ALTCHA（公式サイト）">ALTCHA</a> で保護されています',
    )
  })
})
