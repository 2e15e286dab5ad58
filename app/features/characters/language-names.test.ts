import { describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'
import { languageLabel, languageNamer } from './language-names.ts'

describe('language names in the editor', () => {
  it('names each language in the interface’s language and in itself', () => {
    const en = languageNamer('en')
    expect(languageLabel(en('ja'))).toBe('Japanese · 日本語')
    expect(languageLabel(en('zh-tw'))).toBe('Traditional Chinese · 繁體中文')
    expect(languageLabel(languageNamer('de')('ar'))).toBe('Arabisch · العربية')
    expect(languageLabel(languageNamer('ja')('en'))).toBe('英語 · English')
  })

  it('says a language once where both names are the same', () => {
    expect(languageLabel(languageNamer('en')('en'))).toBe('English')
    expect(languageLabel(languageNamer('ja')('ja'))).toBe('日本語')
  })

  it('names all 21 locales in every interface language', () => {
    for (const ui of LOCALES) {
      const nameOf = languageNamer(ui)
      const labels = LOCALES.map((l) => languageLabel(nameOf(l)))
      expect(new Set(labels).size).toBe(LOCALES.length)
      for (const l of LOCALES) expect(nameOf(l).inInterface).not.toBe('')
    }
  })
})
