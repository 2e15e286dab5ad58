import type { Lorebook } from '#contracts/characters.ts'
import { countTokens } from '#server/modules/models/tokens.ts'

/**
 * A character's lorebook (the Character Card's `character_book`) in the chat: the entries whose keys
 * appear in the newest messages add their text to the system prompt, within a token budget. The
 * rules follow the Character Card V2 spec and what SillyTavern does with them:
 *
 * - an entry counts when it is enabled and is `constant`, or one of its `keys` appears in the scanned
 *   text; a `selective` entry with `secondaryKeys` also needs one of those;
 * - matching ignores case unless the entry is `caseSensitive`; a key that starts or ends with a
 *   letter of a script written with spaces (Latin, Cyrillic, Arabic...) matches whole words only, so
 *   "cat" does not fire on "category"; keys in Chinese, Japanese, Korean or Thai match anywhere;
 * - the scan covers the newest `scanDepth` messages (default DEFAULT_SCAN_DEPTH);
 * - higher `priority` goes in first, then lower `insertionOrder`; entries are added while they fit
 *   in the book's `tokenBudget`, never more than the caller's cap; they are then written in
 *   insertion order, `before_char` ones ahead of the character's description, the rest after it.
 *
 * `useRegex` keys are matched as literal text: a regular expression from an uploaded card would run
 * on the server with no time limit (catastrophic backtracking), and no regex engine without that
 * risk installs from npm alone. Recursive scanning (entries activating entries) is not done.
 */

export const DEFAULT_SCAN_DEPTH = 4
/** Most scanned messages whatever the card says. */
export const MAX_SCAN_DEPTH = 50

export type ActiveLore = { before: string[]; after: string[]; tokens: number }

const NO_WORD_BREAKS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// Keys repeat from one message to the next: their compiled form is kept (bounded, oldest out first).
const compiled = new Map<string, RegExp>()
const COMPILED_MAX = 5000

function keyPattern(key: string, caseSensitive: boolean): RegExp {
  const id = `${caseSensitive ? 's' : 'i'}:${key}`
  const known = compiled.get(id)
  if (known) return known
  const first = key.at(0) ?? ''
  const last = key.at(-1) ?? ''
  const boundary = (ch: string) => WORD_CHAR.test(ch) && !NO_WORD_BREAKS.test(ch)
  const pattern = new RegExp(
    `${boundary(first) ? '(?<![\\p{L}\\p{N}\\p{M}_])' : ''}${escapeRegExp(key)}${boundary(last) ? '(?![\\p{L}\\p{N}\\p{M}_])' : ''}`,
    caseSensitive ? 'u' : 'iu',
  )
  if (compiled.size >= COMPILED_MAX) {
    const oldest = compiled.keys().next().value
    if (oldest !== undefined) compiled.delete(oldest)
  }
  compiled.set(id, pattern)
  return pattern
}

function anyKeyIn(keys: readonly string[], text: string, caseSensitive: boolean): boolean {
  for (const raw of keys) {
    const key = raw.trim()
    if (key && keyPattern(key, caseSensitive).test(text)) return true
  }
  return false
}

/**
 * The lore for a prompt. `scanned`: the conversation's messages, oldest first (only the newest
 * `scanDepth` are read). `capTokens`: the most the lore may take, whatever the book allows.
 */
export function activeLore(
  book: Lorebook | null | undefined,
  scanned: readonly string[],
  capTokens: number,
): ActiveLore {
  const none: ActiveLore = { before: [], after: [], tokens: 0 }
  if (!book || book.entries.length === 0 || capTokens <= 0) return none
  const depth = Math.min(
    MAX_SCAN_DEPTH,
    Math.max(1, Math.floor(book.scanDepth && book.scanDepth > 0 ? book.scanDepth : DEFAULT_SCAN_DEPTH)),
  )
  const text = scanned.slice(-depth).join('\n')
  const budget = Math.min(capTokens, book.tokenBudget && book.tokenBudget > 0 ? book.tokenBudget : capTokens)

  const matching = book.entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => {
      if (!entry.enabled || !entry.content.trim()) return false
      if (entry.constant) return true
      const caseSensitive = entry.caseSensitive === true
      if (!anyKeyIn(entry.keys, text, caseSensitive)) return false
      if (entry.selective && entry.secondaryKeys.some((k) => k.trim()))
        return anyKeyIn(entry.secondaryKeys, text, caseSensitive)
      return true
    })
    .sort(
      (a, b) =>
        (b.entry.priority ?? 0) - (a.entry.priority ?? 0) ||
        a.entry.insertionOrder - b.entry.insertionOrder ||
        a.index - b.index,
    )

  const chosen: typeof matching = []
  let tokens = 0
  for (const item of matching) {
    const cost = countTokens(item.entry.content.trim()) + 1
    if (tokens + cost > budget) continue
    tokens += cost
    chosen.push(item)
  }
  chosen.sort((a, b) => a.entry.insertionOrder - b.entry.insertionOrder || a.index - b.index)
  const lore: ActiveLore = { before: [], after: [], tokens }
  for (const { entry } of chosen)
    (entry.position === 'before_char' ? lore.before : lore.after).push(entry.content.trim())
  return lore
}
