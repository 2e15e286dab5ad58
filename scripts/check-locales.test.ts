import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkLocales, checkProjectLocales } from './check-locales.ts'
import { type StyleRules, styleProblems } from './locale-style.ts'

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

describe('locale style rules', () => {
  const rules = JSON.parse(readFileSync(path.join(import.meta.dirname, 'locale-glossary.json'), 'utf8')) as StyleRules
  const check = (locale: string, ns: string, value: string) => styleProblems(locale, ns, new Map([['k', value]]), rules)

  it('wants full-width punctuation next to Chinese and Japanese text', () => {
    expect(check('ja', 'pricing', 'プランを解約しますか?')).toEqual([
      'ja/pricing: "k" has half-width punctuation "か?"',
    ])
    expect(check('zh-cn', 'pricing', '{{plan}} 套餐,按月付费')).toHaveLength(1)
    expect(check('zh-tw', 'pricing', '無法載入你的方案: {{reason}}')).toHaveLength(1)
    expect(check('ja', 'pricing', '{{plan}} プラン(月払い)')).toHaveLength(2)
    // Full-width, Latin words, placeholders, URLs and times are fine.
    expect(check('ja', 'pricing', 'プランを解約しますか？（月払い）')).toEqual([])
    expect(check('ja', 'legal', 'Character Card (V1, V2, V3) は https://example.com/a?b=c:d を参照')).toEqual([])
    expect(check('zh-cn', 'email', '时间 14:05 {{a, number}}')).toEqual([])
    expect(check('fr', 'pricing', 'Voulez-vous annuler ?')).toEqual([])
  })

  it("knows each locale's word for diamonds, account, e-mail and a character's memory", () => {
    expect(check('ja', 'account', 'ダイヤモンド')).toEqual([
      'ja/account: "k" says "ダイヤモンド"; this locale says "ダイヤ" (diamonds)',
    ])
    expect(check('ja', 'account', 'ダイヤ')).toEqual([])
    expect(check('ko', 'account', '다이아몬드')).toHaveLength(1)
    expect(check('hi', 'pricing', 'उसके डायमंड')).toHaveLength(1)
    expect(check('zh-cn', 'auth', '创建账号')).toHaveLength(1)
    expect(check('zh-tw', 'account', '你的帳戶')).toHaveLength(1)
    expect(check('sv', 'auth', 'Skicka verifieringsmejlet igen')).toHaveLength(1)
    expect(check('th', 'pricing', 'หน่วยความจำ {{count, number}}K')).toHaveLength(1)
    expect(check('vi', 'chat', 'Bộ nhớ')).toHaveLength(1)
    expect(check('id', 'chat', 'Memori')).toHaveLength(1)
    expect(check('ms', 'chat', 'Nota memori')).toHaveLength(1)
  })

  it('keeps one Korean register per file', () => {
    expect(check('ko', 'account', '계정이 삭제되었습니다.')).toEqual([
      'ko/account: "k" has a hamnida ending; this file speaks haeyo',
    ])
    expect(check('ko', 'account', '계정이 삭제되었어요. 다시 시도해 주세요. 감사합니다!')).toEqual([])
    expect(check('ko', 'legal', '메시지가 전송되었어요.')).toEqual([
      'ko/legal: "k" has a haeyo ending; this file speaks hamnida',
    ])
    expect(check('ko', 'legal', '메시지가 전송되었습니다.')).toEqual([])
  })

  it('addresses French readers as "vous"', () => {
    expect(check('fr', 'home', 'Pourquoi on reste')).toEqual([
      'fr/home: "k" says "on"; this locale addresses the reader as "vous"',
    ])
    expect(check('fr', 'home', 'Tu peux créer ton personnage')).toHaveLength(1)
    expect(check('fr', 'home', 'Vous pouvez créer un personnage que l’on adore, mon ami.')).toEqual([])
  })

  it('wants sentence case in Turkish and Indonesian', () => {
    expect(check('tr', 'chat', 'Ayrıntıları Göster')).toEqual([
      'tr/chat: "k" is in Title Case ("Ayrıntıları Göster"); write it in sentence case',
    ])
    expect(check('id', 'common', 'Hubungi Kami')).toHaveLength(1)
    expect(check('tr', 'chat', 'Ayrıntıları göster')).toEqual([])
    // Anda and names keep their capital.
    expect(check('id', 'chat', 'Pesan Anda')).toEqual([])
    expect(check('id', 'email', 'Tim Taleweave')).toEqual([])
  })

  it('catches an Arabic counted noun whose form depends on the number', () => {
    expect(check('ar', 'legal', '{{min, number}} حرفًا على الأقل.')).toEqual([
      'ar/legal: "k" puts a counted noun after a number; use plural forms or rephrase',
    ])
    expect(check('ar', 'legal', '10 حرفًا')).toHaveLength(1)
    // 8 أحرف (3-10: plural) and 32 رمزًا (11-99: accusative singular) are right; أبدًا is an adverb.
    expect(check('ar', 'auth', '8 أحرف، من 3 إلى 32 رمزًا')).toEqual([])
    expect(check('ar', 'legal', 'لا يراها أحد في {{brand}} أبدًا')).toEqual([])
    // A plural key is i18next's job: each form is written for its numbers.
    expect(styleProblems('ar', 'x', new Map([['n_many', '{{count}} حرفًا']]), rules)).toEqual([])
  })

  it('runs inside checkLocales when given the rules', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'locale-style-'))
    for (const [locale, title] of Object.entries({ en: 'Shop?', ja: 'ショップ?' })) {
      mkdirSync(path.join(dir, locale))
      writeFileSync(path.join(dir, locale, 'shop.json'), JSON.stringify({ title }))
    }
    expect(checkLocales({ localesDir: dir, style: rules })).toEqual([
      'ja/shop: "title" has half-width punctuation "プ?"',
    ])
    expect(checkLocales({ localesDir: dir })).toEqual([])
    rmSync(dir, { recursive: true })
  })
})
