import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import i18next, { type i18n as I18next } from 'i18next'
import { describe, expect, it } from 'vitest'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import { type Bundle, createI18n, type I18n } from './i18n.ts'

const localesDir = path.resolve(import.meta.dirname, '../../locales')

/** i18next as the app configured it before ADR 065: the reference our translations must match. */
function reference(locale: Locale, bundle: Bundle): I18next {
  const instance = i18next.createInstance()
  void instance.init({
    lng: locale,
    lowerCaseLng: true,
    fallbackLng: false,
    supportedLngs: false,
    defaultNS: 'common',
    ns: Object.keys(bundle),
    resources: { [locale]: bundle },
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  })
  return instance
}

const theirs = (instance: I18next, key: string, options: object = {}) =>
  (instance.t as unknown as (key: string, options: object) => string)(key, options)
const ours = (instance: I18n, key: string, options: Record<string, unknown> = {}) =>
  instance.translate(['common'], key, options)

/** Every key of a namespace, as written. */
function allKeys(tree: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    value !== null && typeof value === 'object'
      ? allKeys(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  )
}

/** Every key of a namespace as the app asks for it: the plural suffixes taken off. */
const baseKeys = (tree: Record<string, unknown>) =>
  allKeys(tree).map((key) => key.replace(/_(zero|one|two|few|many|other)$/, ''))

describe('translations (ADR 065)', () => {
  it('match i18next for every key of every locale, with counts, values and a context', () => {
    const counts = [0, 1, 2, 3, 5, 11, 21, 100, 103, 1234, 1.5]
    let compared = 0
    for (const locale of LOCALES) {
      const bundle: Bundle = {}
      for (const file of readdirSync(path.join(localesDir, locale)).filter((f) => f.endsWith('.json')))
        bundle[file.replace(/\.json$/, '')] = JSON.parse(readFileSync(path.join(localesDir, locale, file), 'utf8'))
      const ref = reference(locale, bundle)
      const mine = createI18n(locale, bundle)
      const pluralKeys = new Set(
        Object.entries(bundle).flatMap(([ns, tree]) =>
          allKeys(tree)
            .filter((key) => /_(zero|one|two|few|many|other)$/.test(key))
            .map((key) => `${ns}:${key.replace(/_[a-z]+$/, '')}`),
        ),
      )
      for (const [ns, tree] of Object.entries(bundle)) {
        for (const key of new Set(baseKeys(tree))) {
          const full = `${ns}:${key}`
          // Every value a string names, as text; `count` and the numbers also as numbers.
          const values = { name: 'Orla', used: 1200, limit: 40, max: 8192, plan: 'Plus', context: 'female' }
          const plural = pluralKeys.has(`${ns}:${key}`)
          for (const options of [{}, values, ...(plural ? counts.map((count) => ({ ...values, count })) : [])]) {
            expect(ours(mine, full, options), `${locale} ${full} ${JSON.stringify(options)}`).toBe(
              theirs(ref, full, options),
            )
            compared += 1
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000)
  }, 240_000)

  it('look in the namespaces asked for, in order, and fall back to the default value or the key', () => {
    const bundle = { common: { a: 'common a', nested: { b: 'common b' } }, home: { a: 'home a', c: 'home {{x}}' } }
    const mine = createI18n('en', bundle)
    const ref = reference('en', bundle)
    expect(mine.translate(['home', 'common'], 'a')).toBe('home a')
    expect(mine.translate(['home', 'common'], 'nested.b')).toBe('common b')
    expect(mine.translate(['common'], 'home:c', { x: 1 })).toBe('home 1')
    for (const [key, options] of [
      ['missing.key', {}],
      ['missing', { defaultValue: 'plan {{x}}', x: 'Plus' }],
      ['home:c', {}],
      ['home:c', { x: undefined }],
      ['home:c', { x: null }],
    ] as const)
      expect(ours(mine, key, options), key).toBe(theirs(ref, key, options))
    // Not a string (i18next writes a sentence about it): the key, as for a missing one.
    expect(mine.translate(['common'], 'nested')).toBe('nested')
  })

  it('load a namespace on demand, once, and settle when it cannot be loaded', async () => {
    const asked: string[] = []
    const mine = createI18n('fr', { common: { a: 'un' } }, async (locale, ns) => {
      asked.push(`${locale}/${ns}`)
      if (ns === 'broken') throw new Error('offline')
      return { b: 'deux' }
    })
    expect(mine.settled(['common', 'home'])).toBe(false)
    expect(mine.load(['common', 'home'])).toBe(mine.load(['common', 'home']))
    await mine.load(['common', 'home'])
    expect(mine.settled(['common', 'home'])).toBe(true)
    expect(mine.translate(['home'], 'b')).toBe('deux')
    await mine.load(['broken'])
    expect(mine.settled(['broken'])).toBe(true)
    expect(mine.translate(['broken'], 'b')).toBe('b')
    expect(asked).toEqual(['fr/home', 'fr/broken', 'fr/broken', 'fr/broken'])
    expect(mine.store.data.fr?.home).toEqual({ b: 'deux' })
  })
})

describe('counts in the locale files', () => {
  const say = (locale: Locale, ns: string, key: string, options: Record<string, unknown>) => {
    const strings = JSON.parse(readFileSync(path.join(localesDir, locale, `${ns}.json`), 'utf8'))
    return ours(createI18n(locale, { [ns]: strings }), `${ns}:${key}`, options)
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
