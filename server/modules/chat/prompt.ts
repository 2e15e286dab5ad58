import type { Lorebook } from '#contracts/characters.ts'
import type { MessageAuthor } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'
import { replaceMacros } from '#contracts/macros.ts'
import type { ChatMessage } from '#server/modules/models/llm-client.ts'
import {
  countOneMessageTokens,
  countTokens,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
} from '#server/modules/models/tokens.ts'
import { DEFAULT_MAX_REPLY_TOKENS } from '#server/modules/models/user-settings.ts'
import { replyLanguageInstruction } from './language.ts'
import { type ActiveLore, activeLore } from './lorebook.ts'
import {
  CONTINUE_TURN,
  GREETING_FOLD_HEADING,
  INSTRUCTIONS_CLOSE,
  INSTRUCTIONS_OPEN,
  type PromptStyle,
  shapeMessages,
} from './message-shaping.ts'

/**
 * The prompt of a reply: a system message built from the character and the session's memory note,
 * then as many recent messages as fit in the budget, newest kept first. Pure functions: the
 * service loads rows, this decides what goes in.
 */

export type Character = {
  name: string
  /** The character's details (roles.description). */
  description: string
  personality: string
  scenario: string
  introduction: string
  exampleDialogue: string
  /** The card's own system prompt (`system_prompt`): replaces the opening instruction; `{{original}}` keeps it. */
  systemPrompt?: string
  /** The card's `post_history_instructions`: placed after the conversation (see message-shaping.ts). */
  postHistoryInstructions?: string
  /** The card's lorebook: entries whose keys appear in the newest messages join the system prompt. */
  lorebook?: Lorebook | null
}

export type HistoryMessage = { id: number; author: MessageAuthor; content: string; tokens: number }

/**
 * The window of a call: the plan's memory, but never more than the model takes in; part of it is
 * kept for the reply (the chat's reply length, models/user-settings.ts; a small window keeps at
 * most a quarter of itself), the rest is the prompt's budget.
 */
export function contextWindow(memoryK: number, modelContextTokens: number, maxReplyTokens = DEFAULT_MAX_REPLY_TOKENS) {
  const windowTokens = Math.max(0, Math.min(memoryK * 1000, modelContextTokens))
  const replyReserveTokens = Math.min(maxReplyTokens, Math.floor(windowTokens / 4))
  return { windowTokens, replyReserveTokens, budgetTokens: windowTokens - replyReserveTokens }
}

// One owner for the name macros (contracts/macros.ts), shared with the character page.
export { replaceMacros }

const section = (title: string, body: string) => (body.trim() ? `## ${title}\n${body.trim()}` : '')

export type SystemParts = { examples: boolean; introduction: boolean; lore: boolean }

const ALL_PARTS: SystemParts = { examples: true, introduction: true, lore: true }
const NO_LORE: ActiveLore = { before: [], after: [], tokens: 0 }

const DEFAULT_INSTRUCTION =
  "You are {{char}}, in an ongoing role-play with {{user}}. Stay in character. Write only {{char}}'s next reply, and never speak or act for {{user}}."

// A card's `{{original}}` stands for the prompt it replaces (Character Card V2).
const ORIGINAL = /\{\{\s*original\s*\}\}/gi

export function systemPromptOf(
  character: Character,
  userName: string,
  memoryNote: string,
  parts: SystemParts = ALL_PARTS,
  lore: ActiveLore = NO_LORE,
): string {
  const own = character.systemPrompt?.trim()
  const opening = own ? own.replace(ORIGINAL, () => DEFAULT_INSTRUCTION) : DEFAULT_INSTRUCTION
  const text = [
    opening,
    parts.lore ? section('World and lore', lore.before.join('\n\n')) : '',
    section('{{char}}', character.description),
    section('Personality', character.personality),
    section('Scenario', character.scenario),
    parts.lore ? section('Lore', lore.after.join('\n\n')) : '',
    parts.introduction ? section('Introduction', character.introduction) : '',
    section('What happened earlier (memory)', memoryNote),
    parts.examples
      ? section('Example dialogue (for the style only; not part of the story)', character.exampleDialogue)
      : '',
  ]
    .filter(Boolean)
    .join('\n\n')
  return replaceMacros(text, { char: character.name, user: userName })
}

/** The card's post-history instructions with macros filled in; `{{original}}` has nothing to keep here. */
export function postHistoryOf(character: Character, userName: string): string {
  const text = character.postHistoryInstructions?.replace(ORIGINAL, '').trim() ?? ''
  return text ? replaceMacros(text, { char: character.name, user: userName }) : ''
}

/** The longest start of `text` that counts at most `maxTokens`. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text
  let low = 0
  let high = text.length
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (countTokens(text.slice(0, mid)) <= maxTokens) low = mid
    else high = mid - 1
  }
  return text.slice(0, low)
}

const roleTokens: Record<MessageAuthor, number> = { user: countTokens('user'), assistant: countTokens('assistant') }

/** What one stored message adds to a prompt (its text was counted when it was written). */
export function messageCost(message: Pick<HistoryMessage, 'author' | 'tokens'>): number {
  return TOKENS_PER_MESSAGE + roleTokens[message.author] + message.tokens
}

/**
 * A session's system prompt is the same from one message to the next (it changes with the character
 * or the memory note), so its count is kept: counting it again is most of what building a prompt
 * costs. Bounded; the oldest entry goes first.
 */
const systemCounts = new Map<string, number>()
const SYSTEM_COUNTS_MAX = 1000

function systemCost(content: string): number {
  const known = systemCounts.get(content)
  if (known !== undefined) return known
  const cost = countOneMessageTokens({ role: 'system', content })
  if (systemCounts.size >= SYSTEM_COUNTS_MAX) {
    const oldest = systemCounts.keys().next().value
    if (oldest !== undefined) systemCounts.delete(oldest)
  }
  systemCounts.set(content, cost)
  return cost
}

export type PromptInput = {
  character: Character
  userName: string
  memoryNote: string
  /** Recent messages, oldest first; the last is the one the reply answers. */
  history: readonly HistoryMessage[]
  /** True when older messages exist beyond `history`. */
  olderExist: boolean
  budgetTokens: number
  /** How the messages are shaped for the model's chat template (ADR 029); strict by default. */
  promptStyle?: PromptStyle
  /** The language of the reply (language.ts `chatLanguage`); null or left out: the one the user writes in. */
  language?: Locale | null
}

export type Prompt = {
  messages: ChatMessage[]
  usedTokens: number
  /** The messages of `history` that made it in, oldest first. */
  included: HistoryMessage[]
  /** Some messages did not fit (or were not loaded because they could not). */
  trimmed: boolean
}

/**
 * What shaping may add on top of the messages' own counts: the heading of a folded greeting, the
 * delimiters of the post-history block and a closing user turn. Kept aside so a shaped prompt still
 * fits; merging turns only saves tokens.
 */
export function shapingReserve(characterName: string): number {
  return (
    countTokens(`${GREETING_FOLD_HEADING.replace('{{char}}', characterName)}:\n\n\n`) +
    countTokens(`\n\n${INSTRUCTIONS_OPEN}\n\n${INSTRUCTIONS_CLOSE}`) +
    countOneMessageTokens({ role: 'user', content: CONTINUE_TURN })
  )
}

/**
 * The count of the shaped prompt: turns that shaping left as they were cost what they cost when
 * stored; only the system message (counts kept) and merged or extended turns are counted again.
 */
function shapedCost(messages: readonly ChatMessage[], picked: readonly HistoryMessage[]): number {
  const stored = new Map(picked.map((m) => [`${m.author}\n${m.content}`, messageCost(m)]))
  let cost = REPLY_PRIMING_TOKENS
  for (const message of messages) {
    if (message.role === 'system') cost += systemCost(message.content)
    else cost += stored.get(`${message.role}\n${message.content}`) ?? countOneMessageTokens(message)
  }
  return cost
}

/**
 * Builds the prompt within `budgetTokens`. The system message may take at most half of it: past
 * that, the example dialogue goes first, then the introduction, then the text is cut from the end;
 * the language line (ADR 038) always closes it, after the card's own system prompt. Messages are added newest first until the next one does not fit; the newest always goes in.
 */
export function buildPrompt(input: PromptInput): Prompt {
  const { character, userName, memoryNote, history, budgetTokens } = input
  const systemCap = Math.floor(budgetTokens / 2)
  // The lore may take a quarter of the budget at most, whatever the book allows.
  const lore = activeLore(
    character.lorebook,
    history.map((m) => m.content),
    Math.floor(budgetTokens / 4),
  )
  const attempts: SystemParts[] = [
    ALL_PARTS,
    { examples: false, introduction: true, lore: true },
    { examples: false, introduction: false, lore: true },
    { examples: false, introduction: false, lore: false },
  ]
  // The language line closes the system prompt whatever else is cut (ADR 038): its room is kept first.
  const languageLine = `\n\n${replaceMacros(replyLanguageInstruction(input.language ?? null), { char: character.name, user: userName })}`
  const cap = systemCap - countTokens(languageLine)
  let system = ''
  for (const parts of attempts) {
    system = systemPromptOf(character, userName, memoryNote, parts, lore)
    if (systemCost(system) <= cap) break
  }
  if (systemCost(system) > cap) system = truncateToTokens(system, Math.max(0, cap - systemCost('')))
  system += languageLine
  let used = REPLY_PRIMING_TOKENS + systemCost(system) + shapingReserve(character.name)
  // The card's post-history instructions: an eighth of the budget at most.
  let after = postHistoryOf(character, userName)
  if (after) {
    const afterCap = Math.floor(budgetTokens / 8)
    if (systemCost(after) > afterCap) after = truncateToTokens(after, Math.max(0, afterCap - systemCost('')))
    if (after) used += systemCost(after)
  }

  const picked: HistoryMessage[] = []
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as HistoryMessage
    const cost = messageCost(message)
    if (picked.length > 0 && used + cost > budgetTokens) break
    used += cost
    picked.push(message)
  }
  picked.reverse()
  const messages = shapeMessages(
    {
      system,
      turns: picked.map((m): ChatMessage => ({ role: m.author, content: m.content })),
      postHistory: after,
      characterName: character.name,
    },
    input.promptStyle,
  )
  return {
    messages,
    usedTokens: shapedCost(messages, picked),
    included: picked,
    trimmed: picked.length < history.length || input.olderExist,
  }
}
