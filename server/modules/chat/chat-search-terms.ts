import type { Locale } from '#contracts/locales.ts'
import { searchWordList } from '#contracts/search-words.ts'

/**
 * Runs of Chinese characters and Japanese kana (letters, marks and digits of those scripts: the
 * long-vowel mark ー, 々 and the like included; their punctuation not). Korean, written with spaces,
 * and every other script keep the word-start search.
 */
// The `v` flag (set intersection) is built at run time: the project's TypeScript target is ES2023.
// biome-ignore lint/complexity/useRegexLiterals: a literal with `v` does not compile for ES2023
const CJK_RUNS = new RegExp('[[\\p{scx=Han}\\p{scx=Hira}\\p{scx=Kana}]&&[\\p{L}\\p{M}\\p{N}]]+', 'gv')
/** Characters of one query run matched by its pairs (a longer run is cut here: 31 pairs, all must follow). */
const MAX_RUN = 32

const cjkRuns = (text: string) => text.toLowerCase().match(CJK_RUNS) ?? []

/** The overlapping pairs of characters of a run ("図書館" gives "図書", "書館"). */
function bigrams(run: string): string[] {
  const chars = [...run]
  const pairs: string[] = []
  for (let i = 0; i + 1 < chars.length; i++) pairs.push(`${chars[i]}${chars[i + 1]}`)
  return pairs
}

/**
 * What a message is searched by (ADR 048, amended): the overlapping character pairs of each of its
 * Chinese and Japanese runs, first and in order (so a run's pairs stand at consecutive positions
 * of the tsvector, which a query matches with `<->`), then its words as `searchWords` splits them.
 * The pairs find a word inside a longer word the segmenter made ("書館" in "図書館").
 */
export function chatIndexWords(text: string, locale: Locale): string {
  return [...cjkRuns(text).flatMap(bigrams), ...searchWordList(text, locale)].join(' ')
}

/**
 * The tsquery of what was typed, and the words to mark in a snippet. Every part must be there:
 * a word of another script as a word's start (`w:*`); a Chinese or Japanese run of two characters
 * or more as its words' starts (as before) or as its character pairs following each other, that
 * is anywhere inside a longer word; a lone Chinese character as a word's or a pair's start.
 * At most `maxTerms` parts; null when nothing is left to search for. Only letters, marks and
 * digits reach the query, so it is always valid tsquery syntax.
 */
export function chatSearchQuery(
  q: string,
  locale: Locale,
  maxTerms: number,
): { tsQuery: string; words: string[] } | null {
  const prefixes = (words: string[]) => words.map((w) => `${w}:*`).join(' & ')
  const terms = new Map<string, string>()
  for (const run of cjkRuns(q)) {
    const cut = [...run].slice(0, MAX_RUN).join('')
    const pairs = bigrams(cut)
    const ownWords = searchWordList(cut, locale)
    terms.set(cut, pairs.length === 0 ? `${cut}:*` : `( ${prefixes(ownWords)} ) | ( ${pairs.join(' <-> ')} )`)
  }
  const rest = q.toLowerCase().replace(CJK_RUNS, ' ')
  for (const word of searchWordList(rest, locale)) terms.set(word, `${word}:*`)
  const chosen = [...terms].slice(0, maxTerms)
  if (chosen.length === 0) return null
  return { tsQuery: chosen.map(([, term]) => `( ${term} )`).join(' & '), words: chosen.map(([word]) => word) }
}
