import type { Locale } from '#contracts/locales.ts'
import type { ChatMessage } from '#server/modules/models/llm-client.ts'
import { type ModelContext, SAFETY_MARGIN } from '#server/modules/models/model-server-info.ts'
import { countMessageTokens, countTokens } from '#server/modules/models/tokens.ts'
import { summaryLanguageInstruction } from './language.ts'
import { type HistoryMessage, replaceMacros, truncateToTokens } from './prompt.ts'

/**
 * The request of one memory summary, sized to the summary model's real context (ADR 034): the
 * server's context less the safety margin the chat keeps (ADR 030), a share of it for the summary,
 * the rest for the instruction, the earlier note and as many of the messages as fit. Pure: the
 * caller loads the rows and asks the model.
 */

/** The longest summary asked for; the note is cut to MEMORY_NOTE_MAX_LENGTH characters anyway. */
export const SUMMARY_MAX_TOKENS = 600
/** Most of the conversation one summary call reads, however large the context. */
export const SUMMARY_INPUT_TOKENS = 3000
/** The summary may take this share of the context at most; the prompt takes the rest. */
export const SUMMARY_OUTPUT_SHARE = 0.25
/** The earlier note may take this share of the prompt's room for text; the new messages the rest. */
const NOTE_SHARE = 0.5
/** Words per token of a summary, to tell the model how long it may be (English runs ~0.75). */
const WORDS_PER_TOKEN = 0.6

export type SummaryBudget = {
  /** `max_tokens` of the request, in the server's tokens. */
  outputTokens: number
  /** The whole prompt (instruction, note, messages), in our token counts (tokens.ts). */
  inputTokens: number
}

/**
 * The budgets of a summary on a model whose context is `fit` (model-server-info.ts `modelContext`).
 * Output and input together stay within the server's context less the margin; `share` (0-1) shrinks
 * the input after the server refused a prompt as too long.
 */
export function summaryBudget(
  fit: Pick<ModelContext, 'serverContextTokens' | 'contextTokens' | 'maxReplyTokens'>,
  share = 1,
): SummaryBudget {
  const usable = Math.floor(fit.serverContextTokens * (1 - SAFETY_MARGIN))
  const outputTokens = Math.max(
    1,
    Math.min(SUMMARY_MAX_TOKENS, fit.maxReplyTokens ?? SUMMARY_MAX_TOKENS, Math.floor(usable * SUMMARY_OUTPUT_SHARE)),
  )
  // Server tokens per one of ours for this chat's text, as the chat's own window uses it.
  const perOurs = usable / Math.max(1, fit.contextTokens)
  const inputTokens = Math.max(0, Math.floor(((usable - outputTokens) / perOurs) * share))
  return { outputTokens, inputTokens }
}

/**
 * `language`: the chat's (language.ts `chatLanguage`); null or left out: the conversation's own.
 * `sceneNames`: in a scene (ADR 052), the characters who speak in the messages, so the memory is
 * said to be of a role-play with all of them, not only the chat's first character.
 */
type Names = { characterName: string; userName: string; language?: Locale | null; sceneNames?: readonly string[] }

const castList = new Intl.ListFormat('en', { type: 'conjunction' })

const INSTRUCTION =
  'You keep the memory of a role-play between {{user}} and {{char}}. Rewrite the memory so that it also covers the new messages: who is who, what happened, facts learned, feelings, promises and open threads. Write in the third person and the past tense, {{language}}, in at most {{words}} words. Answer with the memory text only.'

/**
 * The request that folds messages which left the window into the memory note. The model rewrites
 * the whole note, so it stays one coherent text instead of a growing list of fragments.
 */
export function summaryPrompt(
  input: Names & { note: string; messages: readonly Pick<HistoryMessage, 'author' | 'content' | 'speaker'>[] },
  maxWords = 250,
): ChatMessage[] {
  const names = { char: input.characterName, user: input.userName }
  const cast = [...new Set([input.characterName, ...(input.sceneNames ?? [])])].filter(Boolean)
  const transcript = input.messages
    .map((m) => `${m.author === 'user' ? names.user : (m.speaker ?? names.char)}: ${m.content}`)
    .join('\n\n')
  return [
    {
      role: 'system',
      content: replaceMacros(
        INSTRUCTION.replace('{{words}}', String(maxWords)).replace(
          '{{language}}',
          summaryLanguageInstruction(input.language ?? null),
        ),
        { ...names, char: cast.length > 1 ? castList.format(cast) : names.char },
      ),
    },
    {
      role: 'user',
      content: `Memory so far:\n${input.note.trim() || '(nothing yet)'}\n\nNew messages:\n${transcript}`,
    },
  ]
}

export type SummaryRequest = {
  messages: ChatMessage[]
  /** The rows the request covers, oldest first (the first may be cut to fit). */
  covered: HistoryMessage[]
  /** Our count of the whole prompt. */
  promptTokens: number
}

/**
 * The summary request within `budget`: the earlier note (cut to its share), then the oldest of
 * `rows` that fit. The first row always goes in, cut from its end when it alone is too long, so a
 * small context still moves the memory forward. Null when not even that fits.
 */
export function buildSummaryRequest(
  names: Names,
  note: string,
  rows: readonly HistoryMessage[],
  budget: SummaryBudget,
): SummaryRequest | null {
  const maxWords = Math.max(10, Math.floor(budget.outputTokens * WORDS_PER_TOKEN))
  const frame = countMessageTokens(summaryPrompt({ ...names, note: '', messages: [] }, maxWords))
  const room = Math.min(
    budget.inputTokens - frame,
    SUMMARY_INPUT_TOKENS + Math.floor(SUMMARY_INPUT_TOKENS * NOTE_SHARE),
  )
  if (room <= 0 || rows.length === 0) return null
  const keptNote = truncateToTokens(note.trim(), Math.floor(room * NOTE_SHARE))
  let left = Math.min(SUMMARY_INPUT_TOKENS, room - countTokens(keptNote))
  const covered: HistoryMessage[] = []
  for (const row of rows) {
    const name = row.author === 'user' ? names.userName : (row.speaker ?? names.characterName)
    // "\n\n{name}: " before each message's text.
    const cost = countTokens(`\n\n${name}: `) + row.tokens
    if (cost <= left) {
      covered.push(row)
      left -= cost
      continue
    }
    if (covered.length === 0) {
      const content = truncateToTokens(row.content, left - countTokens(`\n\n${name}: `))
      if (content.trim()) covered.push({ ...row, content, tokens: countTokens(content) })
    }
    break
  }
  // The pieces were counted apart; the joined text may count a little more: fitted again.
  for (;;) {
    const first = covered[0]
    if (!first) return null
    const messages = summaryPrompt({ ...names, note: keptNote, messages: covered }, maxWords)
    const promptTokens = countMessageTokens(messages)
    const excess = promptTokens - budget.inputTokens
    if (excess <= 0) return { messages, covered, promptTokens }
    if (covered.length > 1) covered.pop()
    else {
      const content = truncateToTokens(first.content, first.tokens - excess)
      if (!content.trim() || content === first.content) return null
      covered[0] = { ...first, content, tokens: countTokens(content) }
    }
  }
}
