import { describe, expect, it } from 'vitest'
import { directionOf, LOCALES, localizePath, matchAcceptLanguage, splitLocalePath } from '#contracts/locales.ts'

describe('locales', () => {
  it('has the 21 locales of the spec', () => {
    expect(LOCALES).toHaveLength(21)
    expect(new Set(LOCALES).size).toBe(21)
  })

  it.each([
    ['ja', 'ja'],
    ['ja-JP,ja;q=0.9,en;q=0.8', 'ja'],
    ['zh-Hant-TW,zh;q=0.9', 'zh-tw'],
    ['zh-TW', 'zh-tw'],
    ['zh-HK', 'zh-tw'],
    ['zh-Hans-CN', 'zh-cn'],
    ['zh', 'zh-cn'],
    ['pt-BR,pt;q=0.9', 'pt'],
    ['nb-NO,sv;q=0.8', 'sv'],
    ['en-US,en;q=0.9,fr;q=0.8', 'en'],
    ['fr;q=0.5,de;q=0.9', 'de'],
    ['in-ID', 'id'],
    ['*', null],
    ['xx-YY', null],
    ['', null],
    [undefined, null],
    ['de;q=0,fr', 'fr'],
  ])('matches Accept-Language %j to %j', (header, expected) => {
    expect(matchAcceptLanguage(header)).toBe(expected)
  })

  it('prefixes every locale but English', () => {
    expect(localizePath('en', '/characters/42')).toBe('/characters/42')
    expect(localizePath('fr', '/characters/42')).toBe('/fr/characters/42')
    expect(localizePath('ja', '/')).toBe('/ja')
  })

  it('splits a prefixed path back into locale and path', () => {
    expect(splitLocalePath('/fr/characters/42')).toEqual({ locale: 'fr', rest: '/characters/42' })
    expect(splitLocalePath('/zh-tw')).toEqual({ locale: 'zh-tw', rest: '/' })
    expect(splitLocalePath('/characters')).toEqual({ locale: 'en', rest: '/characters' })
    // Not locales: an unknown prefix and a word that merely starts like one.
    expect(splitLocalePath('/xx/characters')).toEqual({ locale: 'en', rest: '/xx/characters' })
    expect(splitLocalePath('/french')).toEqual({ locale: 'en', rest: '/french' })
    expect(splitLocalePath('/en/characters')).toEqual({ locale: 'en', rest: '/en/characters' })
  })

  it('lays Arabic out right to left and nothing else', () => {
    expect(LOCALES.filter((l) => directionOf(l) === 'rtl')).toEqual(['ar'])
  })
})
