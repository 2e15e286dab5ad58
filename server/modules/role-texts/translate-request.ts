import type { Locale } from '#contracts/locales.ts'
import { languageLabel } from '#server/modules/chat/language.ts'
import type { ChatMessage } from '#server/modules/models/llm-client.ts'
import { SAFETY_MARGIN } from '#server/modules/models/model-server-info.ts'
import { createThinkSplitter } from '#server/modules/models/reasoning.ts'

/**
 * One machine translation request, pure (ADR 040): the instruction, a long text cut into pieces that
 * fit the model's context, and what comes back cleaned and checked. Every text is translated as
 * plain text on its own: the model sees one field (or one piece of it) and nothing else.
 */

/**
 * English instructions (models follow English best), naming both languages in English and in
 * themselves (as the chat's language line does, ADR 038).
 */
export function translationInstruction(from: Locale, to: Locale): string {
  return [
    `You translate texts of a role-play character from ${languageLabel(from)} into ${languageLabel(to)}.`,
    'Keep every {{char}} and {{user}} exactly as written: they are placeholders for names, never translate or change them.',
    'Keep the asterisks around *actions and narration*, the quotation marks around speech, the line breaks, the paragraphs and any markdown as in the text.',
    'Names of people and places stay as they are unless they have a usual form in the target language.',
    'Answer with the translation only: no preface, no notes, no quotation marks around it.',
  ].join('\n')
}

export function translationMessages(text: string, from: Locale, to: Locale): ChatMessage[] {
  return [
    { role: 'system', content: translationInstruction(from, to) },
    { role: 'user', content: text },
  ]
}

/** The output of a piece may take this many times its input's tokens (scripts tokenize unevenly). */
export const OUTPUT_RATIO = 2.5
/** Room for the reply's own frame and a short text growing more than the ratio. */
const OUTPUT_SLACK = 64
/** The longest piece sent at once, however large the context: long outputs drift. */
export const MAX_PIECE_TOKENS = 1500

/** The model's context as `modelContext` tells it (server tokens), and its reply cap. */
export type TranslationFit = {
  serverContextTokens: number
  maxReplyTokens: number | undefined
  /** A text's size in the server's tokens (estimated). */
  count: (text: string) => number
}

/**
 * The largest piece (server tokens) one request may carry on this model, with its instruction, and
 * the reply length to ask for a piece of `tokens`. Null when not even a short piece fits.
 */
export function pieceBudget(fit: TranslationFit, from: Locale, to: Locale) {
  const usable = Math.floor(fit.serverContextTokens * (1 - SAFETY_MARGIN))
  // The instruction, the two messages' frames and the reply's priming.
  const frame = fit.count(translationInstruction(from, to)) + 12
  const byContext = Math.floor((usable - frame - OUTPUT_SLACK) / (1 + OUTPUT_RATIO))
  const byReply =
    fit.maxReplyTokens === undefined ? Number.POSITIVE_INFINITY : (fit.maxReplyTokens - OUTPUT_SLACK) / OUTPUT_RATIO
  const maxPiece = Math.floor(Math.min(byContext, byReply, MAX_PIECE_TOKENS))
  if (maxPiece < 8) return null
  return {
    maxPiece,
    /** `max_tokens` for a piece of `tokens` server tokens. */
    replyTokens: (tokens: number) =>
      Math.max(
        1,
        Math.min(
          usable - frame - tokens,
          Math.ceil(tokens * OUTPUT_RATIO) + OUTPUT_SLACK,
          fit.maxReplyTokens ?? Number.POSITIVE_INFINITY,
        ),
      ),
  }
}

/** A piece of a text and what separated it from the next (blank lines, a line break, a space). */
export type Piece = { text: string; after: string }

/** Where a text too long for one request is cut, in order: paragraphs, lines, sentences. */
const CUTS = [/(\n{2,})/, /(\n)/, /(?<=[.!?…。！？])(\s*)/]

function atoms(text: string, max: number, count: (text: string) => number, level: number): Piece[] {
  if (count(text) <= max) return [{ text, after: '' }]
  const cut = CUTS[level]
  if (!cut) {
    // One sentence longer than a piece: cut by characters (code points, so no emoji is split).
    const chars = Array.from(text)
    const size = Math.max(1, Math.floor((chars.length * max) / Math.max(1, count(text))))
    const out: Piece[] = []
    for (let i = 0; i < chars.length; i += size) out.push({ text: chars.slice(i, i + size).join(''), after: '' })
    return out
  }
  const parts = text.split(cut)
  if (parts.length === 1) return atoms(text, max, count, level + 1)
  const out: Piece[] = []
  for (let i = 0; i < parts.length; i += 2) {
    const part = parts[i] ?? ''
    const separator = parts[i + 1] ?? ''
    if (part === '') {
      const last = out.at(-1)
      if (last) last.after += separator
      continue
    }
    const sub = atoms(part, max, count, level + 1)
    const last = sub.at(-1)
    if (last) last.after += separator
    out.push(...sub)
  }
  return out
}

/**
 * `text` in pieces of at most `max` tokens (by `count`), cut at paragraphs, then lines, then
 * sentences, then characters, and packed again up to `max`: joining each piece's text and `after`
 * gives `text` back.
 */
export function splitForTranslation(text: string, max: number, count: (text: string) => number): Piece[] {
  const out: Piece[] = []
  for (const atom of atoms(text, max, count, 0)) {
    const current = out.at(-1)
    const joined = current ? current.text + current.after + atom.text : ''
    if (current && count(joined) <= max) {
      current.text = joined
      current.after = atom.after
    } else out.push({ ...atom })
  }
  return out
}

// {{char}} and {{user}} (any case and spacing) and the older <BOT> and <USER>, as contracts/macros.ts.
const MACROS = /\{\{\s*(char|user)\s*\}\}|<(bot|user)>/gi

function macroCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const match of text.matchAll(MACROS)) {
    const key = match[1] ? `{{${match[1].toLowerCase()}}}` : `<${(match[2] ?? '').toLowerCase()}>`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}

/** The macros of `source` that `output` has fewer of (translated, dropped, or turned into another). */
export function lostMacros(source: string, output: string): string[] {
  const have = macroCounts(output)
  return [...macroCounts(source)].filter(([key, n]) => (have.get(key) ?? 0) < n).map(([key]) => key)
}

/** Quotes a model may put around its whole answer. */
const WRAPPERS: [string, string][] = [
  ['"', '"'],
  ['“', '”'],
  ['„', '“'],
  ['«', '»'],
  ['「', '」'],
  ['『', '』'],
  ["'", "'"],
  ['```', '```'],
]

/** A first line that only announces the answer: "Translation:", "Here is the translation into French:". */
const LABEL_LINE = /^\s*(?:\*\*)?[^\n]{0,60}\btranslat[^\n]{0,60}[:：](?:\*\*)?\s*\n/i
/** The same label before the text on one line: "Translation: Bonjour". */
const LABEL_PREFIX = /^\s*(?:\*\*)?(?:translation|translated text)(?:\*\*)?\s*[:：]\s*/i

/**
 * What the model answered, as the translation: its reasoning (`<think>` blocks) removed, a label
 * line and quotes around the whole removed when the source has none of them, trimmed.
 */
export function cleanTranslation(output: string, source: string): string {
  const splitter = createThinkSplitter()
  let text = splitter.push(output.replace(/\r\n?/g, '\n')).content + splitter.flush().content
  text = text.trim()
  const trimmedSource = source.trim()
  if (!LABEL_LINE.test(trimmedSource) && LABEL_LINE.test(text)) text = text.replace(LABEL_LINE, '').trim()
  if (!LABEL_PREFIX.test(trimmedSource)) text = text.replace(LABEL_PREFIX, '').trim()
  for (const [open, close] of WRAPPERS) {
    if (text.length <= open.length + close.length) continue
    if (!text.startsWith(open) || !text.endsWith(close) || trimmedSource.startsWith(open)) continue
    const inner = text.slice(open.length, text.length - close.length)
    // `"Hi," she said. "Bye."` is quoted speech, not a wrapped answer.
    if (inner.includes(open) || inner.includes(close)) continue
    // A code fence may name a language on its first line.
    text = (open === '```' ? inner.replace(/^[a-z-]*\n/i, '') : inner).trim()
    break
  }
  return text
}

export type TranslationProblem = 'empty' | 'macros' | 'too_long'

/** How much longer than its source a translation may be (Japanese into English grows about 3x). */
const GROWTH = 6

/** Why a cleaned translation of `source` is not usable, or null. */
export function translationProblem(output: string, source: string): TranslationProblem | null {
  if (!output.trim()) return 'empty'
  if (lostMacros(source, output).length > 0) return 'macros'
  if (Array.from(output).length > Math.max(200, GROWTH * Array.from(source).length)) return 'too_long'
  return null
}
