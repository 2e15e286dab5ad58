import { readFileSync } from 'node:fs'
import path from 'node:path'
import i18next, { type i18n as I18n } from 'i18next'
import { describe, expect, it } from 'vitest'
import { LOCALES, type Locale } from '#contracts/locales.ts'
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

describe('counts in the locale files', () => {
  const localesDir = path.resolve(import.meta.dirname, '../../locales')
  const say = (locale: Locale, ns: string, key: string, options: object) => {
    const strings = JSON.parse(readFileSync(path.join(localesDir, locale, `${ns}.json`), 'utf8'))
    return translate(createI18n(locale, { [locale]: { [ns]: strings } }), `${ns}:${key}`, options)
  }

  // Arabic: 1 and 2 in words, 3 to 10 with the plural, 11 to 99 with the accusative singular, 100 and
  // up with the genitive singular (by the last two digits: 103 is 3 again).
  it('agree with the number in Arabic', () => {
    const chats = (count: number) => say('ar', 'catalogue', 'card.chats', { count })
    expect([0, 1, 2, 3, 10, 11, 99, 100, 103].map(chats)).toEqual([
      'لا محادثات بعد',
      'محادثة واحدة',
      'محادثتان',
      '3 محادثات',
      '10 محادثات',
      '11 محادثة',
      '99 محادثة',
      '100 محادثة',
      '103 محادثات',
    ])
    const tooLong = (count: number) => say('ar', 'characters-edit', 'fieldErrors.too_long', { count })
    expect(tooLong(10)).toBe('النص طويل جدًا: الحد الأقصى 10 أحرف.')
    expect(tooLong(80)).toBe('النص طويل جدًا: الحد الأقصى 80 حرفًا.')
    expect(tooLong(2000)).toBe('النص طويل جدًا: الحد الأقصى 2,000 حرف.')
    expect(say('ar', 'pricing', 'features.memory', { count: 32_000 })).toBe('تتذكّر الشخصيات آخر 32,000 رمز من المحادثة')
    expect(say('ar', 'catalogue', 'card.rating', { count: 2, rating: '4.5' })).toBe('قيّمها شخصان بمتوسط 4.5 من 5')
  })

  it('agree with the number in Russian and Polish', () => {
    const balance = (count: number) => say('ru', 'pricing', 'success.balance', { count })
    expect([1, 3, 5, 21, 3080].map(balance)).toEqual([
      'Ваш баланс: 1 алмаз',
      'Ваш баланс: 3 алмаза',
      'Ваш баланс: 5 алмазов',
      'Ваш баланс: 21 алмаз',
      'Ваш баланс: 3\u00a0080 алмазов',
    ])
    const tooLong = (count: number) => say('pl', 'chat', 'tooLong', { count })
    expect(tooLong(2)).toBe('Twoja wiadomość jest za długa: maksymalnie 2 znaki.')
    expect(tooLong(4000)).toBe('Twoja wiadomość jest za długa: maksymalnie 4000 znaków.')
  })

  it('say one and many in English', () => {
    expect(say('en', 'legal', 'contact.messageHint', { count: 1 })).toBe('At least 1 character.')
    expect(say('en', 'legal', 'contact.messageHint', { count: 20 })).toBe('At least 20 characters.')
    expect(say('en', 'chat', 'context.value', { used: 1200, count: 8192 })).toBe('1,200 / 8,192 tokens')
  })
})
