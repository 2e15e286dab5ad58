/**
 * Character Card V3 decorators: lines of a lorebook entry's content that start with `@@` and steer
 * the entry (`@@depth 0`, `@@activate_only_after 3`, ...) instead of being lore. They are read
 * here and always taken out of the text, understood or not, so none reaches the model raw.
 *
 * As the V3 spec has it: a decorator is `@@name` and an optional value after a space; a `@@@name`
 * line right after it is its fallback, tried (top to bottom) when the one before is not
 * understood, has no valid value or is a repeat of one already used; of two decorators of one
 * name the first counts, except `@@additional_keys` and `@@exclude_keys`, which add up. The
 * decorators understood are listed in `Decorators`; what each does in the chat is in lorebook.ts
 * and docs/prompt.md. Decorator lines are read wherever they stand in the content (the spec puts
 * them first, and cards have them there).
 */

/** The `@@position` values the prompt has a place for (V3 spec). */
export const LORE_POSITIONS = ['before_desc', 'after_desc', 'personality', 'scenario'] as const
export type LorePosition = (typeof LORE_POSITIONS)[number]

export type Decorators = {
  /** `@@activate`: a match whatever the keys. */
  activate?: true
  /** `@@dont_activate`: never a match (unless `@@activate`). */
  dontActivate?: true
  /** `@@activate_only_after N`: only once the character has written N messages. */
  activateOnlyAfter?: number
  /** `@@activate_only_every N`: only when the character's message count is a multiple of N. */
  activateOnlyEvery?: number
  /** `@@depth N`: placed in the conversation, N messages before its end (0: after the newest). */
  depth?: number
  /** `@@position`: a named place in the system prompt. */
  position?: LorePosition
  /** `@@scan_depth N`: this entry's keys are looked for in the newest N messages only. */
  scanDepth?: number
  /** `@@additional_keys a,b`: one of these must appear too. */
  additionalKeys?: string[]
  /** `@@exclude_keys a,b`: none of these may appear. */
  excludeKeys?: string[]
}

export type DecoratedContent = { text: string; decorators: Decorators }

const DECORATOR_LINE = /^\s*@@/
const NAMED = /^@@(@?)([A-Za-z0-9_]+)(?:[ \t]+(.*))?$/

const wholeNumber = (value: string | undefined, min: number): number | undefined => {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return undefined
  const n = Number(value.trim())
  return Number.isSafeInteger(n) && n >= min ? n : undefined
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

/**
 * Applies one decorator to `into`; false when it is not understood (unknown name, bad value, or a
 * repeat of a single-use one), so its fallback is tried instead.
 */
function apply(into: Decorators, name: string, value: string | undefined): boolean {
  const bare = value === undefined || value.trim() === ''
  switch (name.toLowerCase()) {
    case 'activate':
      if (into.activate || !bare) return false
      into.activate = true
      return true
    case 'dont_activate':
      if (into.dontActivate || !bare) return false
      into.dontActivate = true
      return true
    case 'activate_only_after': {
      const n = wholeNumber(value, 0)
      if (into.activateOnlyAfter !== undefined || n === undefined) return false
      into.activateOnlyAfter = n
      return true
    }
    case 'activate_only_every': {
      const n = wholeNumber(value, 1)
      if (into.activateOnlyEvery !== undefined || n === undefined) return false
      into.activateOnlyEvery = n
      return true
    }
    case 'depth': {
      // Below 1 means "after the newest message" (the spec), so negatives count as 0.
      const n = wholeNumber(value, Number.MIN_SAFE_INTEGER)
      if (into.depth !== undefined || n === undefined) return false
      into.depth = Math.max(0, n)
      return true
    }
    case 'position': {
      const place = value?.trim().toLowerCase() as LorePosition
      if (into.position !== undefined || !LORE_POSITIONS.includes(place)) return false
      into.position = place
      return true
    }
    case 'scan_depth': {
      const n = wholeNumber(value, 1)
      if (into.scanDepth !== undefined || n === undefined) return false
      into.scanDepth = n
      return true
    }
    case 'additional_keys':
    case 'exclude_keys': {
      const keys = list(value)
      if (keys.length === 0) return false
      const field = name.toLowerCase() === 'additional_keys' ? 'additionalKeys' : 'excludeKeys'
      into[field] = [...(into[field] ?? []), ...keys]
      return true
    }
    default:
      return false
  }
}

/** The entry's text without its decorator lines (and the blank lines they leave), and what they say. */
export function readDecorators(content: string): DecoratedContent {
  if (!content.includes('@@')) return { text: content.trim(), decorators: {} }
  const decorators: Decorators = {}
  const kept: string[] = []
  // A chain is a decorator and its `@@@` fallbacks; `settled` once one of them applied. A fallback
  // with nothing before it has nothing to stand in for.
  let settled = true
  let afterDecorator = false
  for (const line of content.split(/\r?\n/)) {
    if (!DECORATOR_LINE.test(line)) {
      // The blank lines around a decorator go with it (V3 spec).
      if (afterDecorator && line.trim() === '') continue
      // Text on both sides of a decorator stays two paragraphs.
      if (afterDecorator && kept.length > 0) kept.push('')
      afterDecorator = false
      kept.push(line)
      continue
    }
    while (kept.length > 0 && kept.at(-1)?.trim() === '') kept.pop()
    afterDecorator = true
    const match = NAMED.exec(line.trim())
    if (match?.[1] !== '@') settled = false
    if (settled || !match) continue
    settled = apply(decorators, match[2] as string, match[3])
  }
  const text = kept.join('\n').trim()
  // `@@position` moves the entry: any `@@depth` is ignored then (V3 spec).
  if (decorators.position !== undefined) delete decorators.depth
  return { text, decorators }
}
