import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkLocales, checkProjectLocales } from './check-locales.ts'
import { type StyleRules, styleProblems } from './locale-style.ts'

const fixtures = path.resolve(import.meta.dirname, '..', 'tests', 'fixtures')

/** A temporary locales folder with one namespace, `x`, per locale. */
function localesFixture(files: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'locales-'))
  for (const [locale, strings] of Object.entries(files)) {
    mkdirSync(path.join(dir, locale))
    writeFileSync(path.join(dir, locale, 'x.json'), JSON.stringify(strings))
  }
  return dir
}

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

  it('wants plural forms wherever English shows a number with a word after it', () => {
    const dir = localesFixture({
      en: {
        hint: 'At least {{min, number}} characters.',
        tags: 'Up to {{limit}} tags.',
        range: 'From {{min}} to {{max}}',
        page: 'Page {{page}} of {{total}}',
        counter: '{{count, number}} / {{limit, number}}',
        items_one: '{{count, number}} item',
        items_other: '{{count, number}} items',
      },
    })
    expect(checkLocales({ localesDir: dir })).toEqual([
      'en/x: "hint" counts "characters" without plural forms; make it hint_one, hint_other',
      'en/x: "tags" counts "tags" without plural forms; make it tags_one, tags_other',
    ])
    rmSync(dir, { recursive: true })
  })

  it('lets a plural form that stands for one number say it in words, and no other form', () => {
    const english = {
      items_one: '{{count, number}} item in {{shop}}',
      items_other: '{{count, number}} items in {{shop}}',
    }
    const dir = localesFixture({
      en: english,
      ar: {
        // 0, 1 and 2 are each one number in Arabic: "مقالتان", not "2 مقالتان".
        items_zero: 'لا عناصر في {{shop}}',
        items_one: 'عنصر واحد في {{shop}}',
        items_two: 'عنصران في {{shop}}',
        items_few: 'عناصر في {{shop}}',
        items_many: '{{count, number}} عنصرًا في {{shop}}',
        items_other: '{{count, number}} عنصر في {{shop}}',
      },
      // Russian `one` is also 21, 31...; French `one` is 0 and 1: the number must be shown.
      ru: {
        items_one: 'один предмет в {{shop}}',
        items_few: '{{count, number}} предмета в {{shop}}',
        items_many: '{{count, number}} предметов в {{shop}}',
        items_other: '{{count, number}} предмета в {{shop}}',
      },
      fr: {
        items_one: 'un article dans {{shop}}',
        items_many: '{{count, number}} d’articles dans {{shop}}',
        items_other: '{{count, number}} articles dans {{shop}}',
      },
      pl: {
        items_one: 'jeden przedmiot w {{shop}}',
        items_few: '{{count, number}} przedmioty w {{shop}}',
        items_many: '{{count, number}} przedmiotów w {{shop}}',
        items_other: '{{count, number}} przedmiotu w {{shop}}',
      },
    })
    expect(checkLocales({ localesDir: dir }).map((p) => p.replace(/ placeholders .*/, ''))).toEqual([
      'ar/x: "items_few"',
      'fr/x: "items_one"',
      'ru/x: "items_one"',
    ])
    rmSync(dir, { recursive: true })
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
    expect(check('ko', 'legal', '짧은 메모리 노트')).toHaveLength(1)
    expect(check('th', 'common', 'เริ่มแชตใหม่')).toHaveLength(1)
    expect(check('id', 'chat', 'Pengaturan chat')).toHaveLength(1)
    // The computer's memory is right where the computer's memory is meant.
    expect(check('vi', 'blog', 'argon2id, một thuật toán cố ý chạy chậm và tốn nhiều bộ nhớ')).toEqual([])
    expect(check('ko', 'blog', '일부러 느리게, 메모리를 많이 쓰도록 설계된 알고리즘')).toEqual([])
    expect(check('ko', 'blog', '메모리를 많이 쓰는 알고리즘과 메모리 노트')).toHaveLength(1)
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
    // "le ton" is the tone.
    expect(check('fr', 'blog', 'Le modèle en reprend la longueur, le ton et le style.')).toEqual([])
    expect(check('fr', 'blog', 'Gardez ton style.')).toHaveLength(1)
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

  it("holds the blog's translations to the same rules, reading only their prose", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'blog-style-'))
    const locales = path.join(dir, 'locales')
    const blog = path.join(dir, 'blog')
    for (const [locale, title] of Object.entries({ en: 'Memory', ja: '記憶', th: 'ความจำ' })) {
      mkdirSync(path.join(locales, locale), { recursive: true })
      writeFileSync(path.join(locales, locale, 'x.json'), JSON.stringify({ title }))
    }
    mkdirSync(path.join(blog, 'how-memory-works'), { recursive: true })
    const article = (lines: string[]) => `${lines.join('\n')}\n`
    writeFileSync(
      path.join(blog, 'how-memory-works', 'en.md'),
      article(['---', 'title: "How memory works?"', '---', 'Text.']),
    )
    writeFileSync(
      path.join(blog, 'how-memory-works', 'ja.md'),
      article([
        '---',
        'title: "記憶のしくみ"',
        'date: 2026-01-01',
        '---',
        '',
        '本文です。[料金プラン](/ja/subscribe?a=b)と `キー: (値)` はそのまま。',
        '',
        '```json',
        '{ "キー": "値(かっこ)" }',
        '```',
        '',
        '## 半角の疑問符は?',
      ]),
    )
    writeFileSync(
      path.join(blog, 'how-memory-works', 'th.md'),
      article(['---', 'title: "หน่วยความจำทำงานอย่างไร"', 'cover: /blog/how-memory-works/cover.svg', '---', 'ข้อความ']),
    )
    expect(checkLocales({ localesDir: locales, style: rules, blogDir: blog }).sort()).toEqual([
      'ja/blog/how-memory-works: "line 12" has half-width punctuation "は?"',
      'th/blog/how-memory-works: "line 2" says "หน่วยความจำ"; this locale says "ความจำ" (a character\'s memory)',
    ])
    expect(checkLocales({ localesDir: locales, blogDir: blog })).toEqual([])
    rmSync(dir, { recursive: true })
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
