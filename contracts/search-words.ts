import { LOCALE_TAGS, type Locale } from './locales.ts'

const segmenters = new Map<Locale, Intl.Segmenter>()
const RUNS = /[\p{L}\p{M}\p{N}]+/gu

/**
 * A text as the words search compares (ADR 039): split with `Intl.Segmenter` in the text's
 * language, so Japanese, Chinese and Thai, written without spaces, get word boundaries; only
 * letters, marks and digits kept (a word like "it's" gives "it" and "s"); lower-cased, joined by
 * spaces. Both what is searched (`search_text`, turned into a 'simple' tsvector) and what a
 * visitor types go through it, so they break alike.
 */
export function searchWords(text: string, locale: Locale): string {
  return searchWordList(text, locale).join(' ')
}

/** The same words as a list (the search query is built from the first few). */
export function searchWordList(text: string, locale: Locale): string[] {
  let segmenter = segmenters.get(locale)
  if (!segmenter) {
    segmenter = new Intl.Segmenter(LOCALE_TAGS[locale], { granularity: 'word' })
    segmenters.set(locale, segmenter)
  }
  const words: string[] = []
  for (const part of segmenter.segment(text.toLowerCase())) {
    if (!part.isWordLike) continue
    for (const run of part.segment.match(RUNS) ?? []) words.push(run)
  }
  return words
}
