import { MAX_DIAMOND_ADJUSTMENT } from '#contracts/admin-people.ts'

/** Digits of other scripts an operator may type (Arabic-Indic, Eastern Arabic-Indic), as ASCII. */
const toAsciiDigits = (text: string) =>
  text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String((d.codePointAt(0) ?? 0) & 0xf))

/** Digits in groups of three after a separator: "1,000", "1.000.000", "1'000", "١٬٠٠٠". */
const GROUPED = /^\d{1,3}([,.'\u066C]\d{3})+$/

/**
 * A number of diamonds typed in the form ("120", "1 000", "1,000", "١٢٠"): a whole number from 1
 * up to the most one action may move, or null. Spaces go; a comma or dot counts only between groups
 * of three digits, so "1.5" is refused rather than read as 15.
 */
export function parseDiamonds(text: string): number | null {
  const spaced = toAsciiDigits(text).replace(/[\s\u00A0\u202F]/g, '')
  const plain = GROUPED.test(spaced) ? spaced.replace(/[,.'\u066C]/g, '') : spaced
  if (!/^\d+$/.test(plain)) return null
  const value = Number(plain)
  return value >= 1 && value <= MAX_DIAMOND_ADJUSTMENT ? value : null
}
