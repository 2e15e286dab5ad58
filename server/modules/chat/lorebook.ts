import type { Lorebook } from '#contracts/characters.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import { type Decorators, type LorePosition, readDecorators } from './lore-decorators.ts'

/**
 * A character's lorebook (the Character Card's `character_book`) in the chat: the entries whose keys
 * appear in the newest messages add their text to the prompt, within a token budget. The rules
 * follow the Character Card V2 and V3 specs and what SillyTavern does with them (docs/prompt.md):
 *
 * - an entry counts when it is enabled and is `constant`, or one of its `keys` appears in the scanned
 *   text; a `selective` entry with `secondaryKeys` also needs one of those;
 * - matching ignores case unless the entry is `caseSensitive`; a key that starts or ends with a
 *   letter of a script written with spaces (Latin, Cyrillic, Arabic...) matches whole words only, so
 *   "cat" does not fire on "category"; keys in Chinese, Japanese, Korean or Thai match anywhere;
 * - the scan covers the newest `scanDepth` messages (default DEFAULT_SCAN_DEPTH);
 * - V3 decorators in the content (lore-decorators.ts) add conditions and places, and never reach
 *   the model themselves;
 * - constant entries go in first, then the matched ones by `priority` (highest first), then by
 *   `insertionOrder` (highest first: the V3 spec and SillyTavern drop the lowest first), while they
 *   fit in the book's `tokenBudget`, never more than the caller's cap; each place in the prompt
 *   then lists its entries in insertion order (lowest first).
 *
 * `useRegex` keys are matched as literal text: a regular expression from an uploaded card would run
 * on the server with no time limit (catastrophic backtracking), and no regex engine without that
 * risk installs from npm alone. Recursive scanning (entries activating entries) is not done.
 */

export const DEFAULT_SCAN_DEPTH = 4
/** Most scanned messages whatever the card says. */
export const MAX_SCAN_DEPTH = 50

/** Places in the system prompt: the `@@position` ones, and `after_char` (the entry's default). */
export type LoreSlot = LorePosition | 'after_char'

export type ActiveLore = {
  /** Entries for each place of the system prompt, in insertion order. */
  system: Record<LoreSlot, string[]>
  /**
   * `@@depth` entries: placed after the conversation (deepest first), as near the newest message
   * as the chat templates allow (docs/prompt.md).
   */
  conversation: string[]
  /** What the entries cost: each one's tokens and one for the line between them. */
  tokens: number
}

export const noLore = (): ActiveLore => ({
  system: { before_desc: [], after_desc: [], personality: [], scenario: [], after_char: [] },
  conversation: [],
  tokens: 0,
})

export type LoreContext = {
  /** The conversation's messages, oldest first (only the newest `scanDepth` are read). */
  scanned: readonly string[]
  /** The most the lore may take, whatever the book allows. */
  capTokens: number
  /**
   * How many messages the character has written in the whole chat, its greeting included (for
   * `@@activate_only_after` and `@@activate_only_every`); left out: those decorators are ignored,
   * as the V3 spec asks when the count cannot be known.
   */
  characterMessages?: number | undefined
}

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

/** Whether the book has entries that depend on how many messages the character has written. */
export function countsCharacterMessages(book: Lorebook | null | undefined): boolean {
  return book?.entries.some((e) => e.enabled && /@@@?activate_only_(after|every)/i.test(e.content)) ?? false
}

function scanDepthOf(requested: number | undefined): number {
  const depth = requested && requested > 0 ? requested : DEFAULT_SCAN_DEPTH
  return Math.min(MAX_SCAN_DEPTH, Math.max(1, Math.floor(depth)))
}

/** What the decorators allow whatever the keys: the timing ones and `@@dont_activate`. */
function timingAllows(d: Decorators, characterMessages: number | undefined): boolean {
  if (d.dontActivate && !d.activate) return false
  if (characterMessages === undefined) return true
  if (d.activateOnlyAfter !== undefined && characterMessages < d.activateOnlyAfter) return false
  if (d.activateOnlyEvery !== undefined && characterMessages % d.activateOnlyEvery !== 0) return false
  return true
}

/** The lore for a prompt (see the top of this file). */
export function activeLore(book: Lorebook | null | undefined, context: LoreContext): ActiveLore {
  const { scanned, capTokens, characterMessages } = context
  if (!book || book.entries.length === 0 || capTokens <= 0) return noLore()
  const bookDepth = scanDepthOf(book.scanDepth)
  const texts = new Map<number, string>()
  const textOf = (depth: number) => {
    let text = texts.get(depth)
    if (text === undefined) {
      text = scanned.slice(-depth).join('\n')
      texts.set(depth, text)
    }
    return text
  }
  const budget = Math.min(capTokens, book.tokenBudget && book.tokenBudget > 0 ? book.tokenBudget : capTokens)

  type Candidate = { index: number; order: number; priority: number; always: boolean; text: string; d: Decorators }
  const matching: Candidate[] = []
  book.entries.forEach((entry, index) => {
    if (!entry.enabled || !entry.content.trim()) return
    const { text, decorators: d } = readDecorators(entry.content)
    if (!text || !timingAllows(d, characterMessages)) return
    const always = d.activate === true || entry.constant === true
    if (!always) {
      const scannedText = textOf(d.scanDepth ? scanDepthOf(d.scanDepth) : bookDepth)
      const caseSensitive = entry.caseSensitive === true
      if (!anyKeyIn(entry.keys, scannedText, caseSensitive)) return
      if (entry.selective && entry.secondaryKeys.some((k) => k.trim()))
        if (!anyKeyIn(entry.secondaryKeys, scannedText, caseSensitive)) return
      if (d.additionalKeys && !anyKeyIn(d.additionalKeys, scannedText, caseSensitive)) return
      if (d.excludeKeys && anyKeyIn(d.excludeKeys, scannedText, caseSensitive)) return
    }
    matching.push({ index, order: entry.insertionOrder, priority: entry.priority ?? 0, always, text, d })
  })
  matching.sort(
    (a, b) => Number(b.always) - Number(a.always) || b.priority - a.priority || b.order - a.order || a.index - b.index,
  )

  const chosen: Candidate[] = []
  let tokens = 0
  for (const item of matching) {
    const cost = countTokens(item.text) + 1
    if (tokens + cost > budget) continue
    tokens += cost
    chosen.push(item)
  }
  chosen.sort((a, b) => a.order - b.order || a.index - b.index)
  const lore = noLore()
  lore.tokens = tokens
  const deep: Candidate[] = []
  for (const item of chosen) {
    const entry = book.entries[item.index]
    if (item.d.position) lore.system[item.d.position].push(item.text)
    // Deeper than the conversation goes: before its oldest message, i.e. in the system prompt.
    else if (item.d.depth !== undefined && item.d.depth <= scanned.length) deep.push(item)
    else lore.system[entry?.position === 'before_char' ? 'before_desc' : 'after_char'].push(item.text)
  }
  // The deepest first, so depth 0 comes last, nearest the reply; a stable sort keeps the insertion
  // order within one depth.
  deep.sort((a, b) => (b.d.depth ?? 0) - (a.d.depth ?? 0))
  lore.conversation = deep.map((item) => item.text)
  return lore
}
