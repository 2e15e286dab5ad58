// Style rules of the locale check, beyond "same keys as English": the house terms of each locale
// (one word for diamonds, account, memory...), full-width punctuation in Chinese and Japanese, one
// register per file in Korean, "vous" in French, sentence case in Turkish and Indonesian, and
// Arabic counted nouns. The rules' data is scripts/locale-glossary.json; docs/i18n.md explains it.

type Register = 'haeyo' | 'hamnida'

export type StyleRules = {
  /** Locales that write full-width `，？！：；（）` next to CJK text. */
  fullWidth?: string[]
  /**
   * Per locale: the word the locale uses, the variants it must not use, and the phrases in which an
   * avoided word is right after all (the computer's memory in "argon2id uses a lot of memory").
   */
  glossary?: Record<string, { term: string; use: string; avoid: string[]; except?: string[] }[]>
  /** Korean speech level of every sentence, per file (namespace); `*` for the others. */
  register?: Record<string, Record<string, Register>>
  /** Locales that address the reader as "vous" (no tu-forms, no colloquial subject "on"). */
  formal?: string[]
  /** Locales whose labels and sentences are in sentence case, and the words that keep their capital. */
  sentenceCase?: { locales: string[]; keepCapital: string[] }
  /** Locales where a number followed by an accusative singular noun must come from plural forms. */
  countedNouns?: string[]
}

const PLACEHOLDER = /\{\{[^}]*\}\}|\$t\([^)]*\)|https?:\/\/\S+/g
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー。、「」『』（）！？：；，]/u
const HALF_WIDTH = /[,?!:;()]/g
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/
const ARABIC_ADVERBS = new Set(['أبدًا', 'جدًا', 'أيضًا', 'دائمًا', 'تمامًا', 'حاليًا', 'فورًا', 'يوميًا', 'شهريًا', 'سنويًا'])

/** Half-width punctuation whose nearest non-space neighbour is CJK: `した:`, `プラン(月`, `吗?`. */
function halfWidthInCjk(value: string): string[] {
  const text = value.replace(PLACEHOLDER, 'x')
  const found: string[] = []
  for (const match of text.matchAll(HALF_WIDTH)) {
    const at = match.index ?? 0
    const before = text.slice(0, at).trimEnd().slice(-1)
    const after = text
      .slice(at + 1)
      .trimStart()
      .slice(0, 1)
    // A bracket counts by its inside: "カード (V3) は" keeps Latin brackets, "プラン(月払い)" does not.
    const cjk = match[0] === '(' ? CJK.test(after) : match[0] === ')' ? CJK.test(before) : CJK.test(before + after)
    if (cjk) found.push(`${before}${match[0]}${after}`)
  }
  return found
}

/** The ending of each Korean sentence: 합니다-style (니다, 니까, 십시오) or 해요-style (요). */
function koreanEndings(value: string): Register[] {
  return value
    .replace(PLACEHOLDER, 'x')
    .split(/(?<=[.!?])\s+|\n/)
    .map((sentence) => sentence.replace(/[.!?…:)\s"”]+$/, ''))
    .flatMap((sentence): Register[] => {
      // 감사합니다 and the polite request (주세요, 하세요) belong to both.
      if (/(감사합니다|세요)$/.test(sentence)) return []
      if (/(니다|니까|십시오)$/.test(sentence)) return ['hamnida']
      if (/요$/.test(sentence)) return ['haeyo']
      return []
    })
}

// "ton" after an article or "même" is the noun (le ton, un ton: the tone), not "your".
const TU_FORMS = /(?:^|[^\p{L}’'])(?<!\b(?:le|un|du|au|ce|même) )(tu|toi|ton|ta|tes|t[’'])(?=[^\p{L}]|$)/iu
const COLLOQUIAL_ON = /(?:^|[^\p{L}’'])on(?=\s)/iu

/** Two or more words after the first all start with a capital: "Ayrıntıları Göster", "Hubungi Kami". */
function isTitleCase(value: string, keepCapital: string[]): boolean {
  let text = value.replace(PLACEHOLDER, ' ')
  for (const word of keepCapital) text = text.split(word).join(' ')
  const words = text.match(/\p{L}+/gu) ?? []
  const rest = words.slice(1).filter((w) => w !== w.toUpperCase())
  return rest.length > 0 && rest.every((w) => /^\p{Lu}/u.test(w))
}

/** Problems of one namespace file of one locale, `locale/ns: "key" ...` like the rest of the check. */
export function styleProblems(locale: string, ns: string, entries: Map<string, string>, rules: StyleRules): string[] {
  const problems: string[] = []
  const where = `${locale}/${ns}`
  const terms = rules.glossary?.[locale] ?? []
  const register = rules.register?.[locale]
  const expected = register ? (register[ns] ?? register['*']) : undefined
  const sentenceCase = rules.sentenceCase?.locales.includes(locale) ? rules.sentenceCase.keepCapital : null
  for (const [key, value] of entries) {
    if (rules.fullWidth?.includes(locale)) {
      for (const spot of halfWidthInCjk(value)) problems.push(`${where}: "${key}" has half-width punctuation "${spot}"`)
    }
    const lower = value.toLocaleLowerCase(locale)
    for (const { term, use, avoid, except = [] } of terms) {
      const text = except.reduce((rest, phrase) => rest.split(phrase.toLocaleLowerCase(locale)).join(' '), lower)
      for (const word of avoid) {
        if (text.includes(word.toLocaleLowerCase(locale))) {
          problems.push(`${where}: "${key}" says "${word}"; this locale says "${use}" (${term})`)
        }
      }
    }
    if (expected) {
      const other = koreanEndings(value).find((ending) => ending !== expected)
      if (other) problems.push(`${where}: "${key}" has a ${other} ending; this file speaks ${expected}`)
    }
    if (rules.formal?.includes(locale)) {
      const informal = TU_FORMS.exec(value)?.[1] ?? COLLOQUIAL_ON.exec(value)?.[0].trim()
      if (informal) problems.push(`${where}: "${key}" says "${informal}"; this locale addresses the reader as "vous"`)
    }
    if (sentenceCase && isTitleCase(value, sentenceCase)) {
      problems.push(`${where}: "${key}" is in Title Case ("${value}"); write it in sentence case`)
    }
    if (rules.countedNouns?.includes(locale) && !PLURAL_SUFFIX.test(key)) {
      // 11-99 take the accusative singular ("32 رمزًا"); 3-10 take the plural ("8 أحرف"), and a
      // placeholder can be either. Adverbs (أبدًا, جدًا...) end the same way and are no count.
      const text = value.replace(/\{\{[^}]*\}\}/g, '#')
      const counted = /(?:#|(?<!\d)(?:[0-9]|10))\s+(\p{L}+ًا)/u.exec(text)?.[1]
      if (counted && !ARABIC_ADVERBS.has(counted)) {
        problems.push(`${where}: "${key}" puts a counted noun after a number; use plural forms or rephrase`)
      }
    }
  }
  return problems
}

/**
 * The prose of a Markdown article as entries for `styleProblems`, keyed `line <n>`: its title,
 * description and cover text, then each line of text without code (fenced or inline), link targets
 * and Markdown marks (headings, lists, tables, emphasis).
 */
export function markdownEntries(markdown: string): Map<string, string> {
  const entries = new Map<string, string>()
  const lines = markdown.split('\n')
  let inFrontMatter = lines[0]?.trim() === '---'
  let inCode = false
  lines.forEach((raw, index) => {
    const key = `line ${index + 1}`
    if (index === 0 && inFrontMatter) return
    if (inFrontMatter) {
      if (raw.trim() === '---') inFrontMatter = false
      const field = /^(title|description|coverAlt):\s*"?(.*?)"?\s*$/.exec(raw)
      if (field?.[2]) entries.set(key, field[2])
      return
    }
    if (/^\s*(```|~~~)/.test(raw)) {
      inCode = !inCode
      return
    }
    if (inCode) return
    const text = raw
      .replace(/`[^`]*`/g, ' ')
      .replace(/\]\([^)]*\)/g, ']')
      .replace(/^\s*(#+|[-*]|\d+\.)\s+/, '')
      .replace(/[[\]|*_]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
    if (/\p{L}/u.test(text)) entries.set(key, text)
  })
  return entries
}
