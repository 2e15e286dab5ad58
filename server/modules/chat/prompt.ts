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
import { type ActiveLore, activeLore, noLore } from './lorebook.ts'
import {
  AUTHOR_NOTE_CLOSE,
  AUTHOR_NOTE_OPEN,
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
  exampleDialogue: string
  /** The card's own system prompt (`system_prompt`): replaces the opening instruction; `{{original}}` keeps it. */
  systemPrompt?: string
  /** The card's `post_history_instructions`: placed after the conversation (see message-shaping.ts). */
  postHistoryInstructions?: string
  /**
   * The card's lorebook, with the character's attached lorebooks merged in: entries whose keys
   * appear in the newest messages join the prompt (lorebook.ts). The introduction (the card's
   * `creator_notes`) is not here: it is for people, never for the model (V2 spec).
   */
  lorebook?: Lorebook | null
}

export type HistoryMessage = {
  id: number
  author: MessageAuthor
  content: string
  tokens: number
  /** In a scene's memory summary (ADR 052): the name of the character who wrote this reply. */
  speaker?: string
}

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

const section = (title: string, ...parts: string[]) => {
  const body = parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n\n')
  return body ? `## ${title}\n${body}` : ''
}

const DEFAULT_INSTRUCTION =
  "You are {{char}}, in an ongoing role-play with {{user}}. Stay in character. Write only {{char}}'s next reply, and never speak or act for {{user}}."

// A card's `{{original}}` stands for the prompt it replaces (Character Card V2).
const ORIGINAL = /\{\{\s*original\s*\}\}/gi

/** The character's own texts that may be shortened, the memory note with them. */
type CharacterTexts = Pick<Character, 'description' | 'personality' | 'scenario'> & {
  memoryNote: string
  /** The description of the user's persona (ADR 049). */
  persona: string
}
const emptyTexts: CharacterTexts = { description: '', personality: '', scenario: '', memoryNote: '', persona: '' }

export type SystemOptions = {
  /** The example dialogue, the first thing left out when space runs short. */
  examples?: boolean
  lore?: ActiveLore
  /** The description of the user's persona (ADR 049), in its own `## {{user}}` section. */
  persona?: string
  /** Shortened texts to use instead of the character's own. */
  texts?: CharacterTexts
}

/** The opening instruction: ours, or the card's own system prompt (`{{original}}` keeps ours). */
function openingOf(character: Character): string {
  const own = character.systemPrompt?.trim()
  return own ? own.replace(ORIGINAL, () => DEFAULT_INSTRUCTION) : DEFAULT_INSTRUCTION
}

/**
 * The system prompt: the opening instruction, the character (lore in its places), the memory note
 * and the example dialogue, with the name macros filled in. The language line is added by
 * `buildPrompt`.
 */
export function systemPromptOf(
  character: Character,
  userName: string,
  memoryNote: string,
  options: SystemOptions = {},
): string {
  const lore = options.lore ?? noLore()
  const texts = options.texts ?? { ...character, memoryNote, persona: options.persona ?? '' }
  // A place the character does not have is no place: its entries go where entries go by default (V3 spec).
  const personalityLore = character.personality.trim() ? lore.system.personality : []
  const scenarioLore = character.scenario.trim() ? lore.system.scenario : []
  const text = [
    openingOf(character),
    section('World and lore', ...lore.system.before_desc),
    section('{{char}}', texts.description, ...lore.system.after_desc),
    section('Personality', texts.personality, ...personalityLore),
    section('Scenario', texts.scenario, ...scenarioLore),
    section(
      'Lore',
      ...(personalityLore.length ? [] : lore.system.personality),
      ...(scenarioLore.length ? [] : lore.system.scenario),
      ...lore.system.after_char,
    ),
    // Who the character is talking with: the user's persona (ADR 049), after the character and its lore.
    section('{{user}}', texts.persona),
    section('What happened earlier (memory)', texts.memoryNote),
    options.examples !== false
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

// Counted on first use, not at import: the tokenizer loads when a chat first needs it (ADR 067).
let roleTokens: Record<MessageAuthor, number> | undefined

/** What one stored message adds to a prompt (its text was counted when it was written). */
export function messageCost(message: Pick<HistoryMessage, 'author' | 'tokens'>): number {
  roleTokens ??= { user: countTokens('user'), assistant: countTokens('assistant') }
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
  /**
   * How many messages the character wrote before `history` (history.ts `olderCharacterMessages`),
   * for the lorebook's `@@activate_only_after` and `@@activate_only_every`, which count the whole
   * chat. Left out while older messages exist: those decorators are ignored (V3 spec).
   */
  olderCharacterMessages?: number | undefined
  /**
   * The description of the chat's persona (ADR 049): its own `## {{user}}` section, shortened with
   * the character's texts (longest first) when room runs short. '' or left out: no section.
   */
  persona?: string | undefined
  /**
   * The chat's author's note (ADR 053): a system instruction `depth` messages before the end.
   * Kept, like the post-history instructions, before the conversation takes its room (an eighth
   * of the budget at most).
   */
  authorNote?: { text: string; depth: number } | undefined
  /**
   * Said last in place of the card's post-history instructions: impersonate's instruction
   * (impersonate.ts), which no text of the card can remove. Left out: the card's.
   */
  finalInstruction?: string | undefined
  /** A scene's "Also in this scene" part (scene-prompt.ts, ADR 052): kept whole, before the language line. */
  sceneNote?: string | undefined
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
 * The longest texts shortened first: every text whose count is at most some allowance stays whole,
 * the longer ones are cut to that allowance, the largest that keeps the sum within `room`.
 */
function shortenLongestFirst(texts: readonly string[], room: number): string[] {
  const costs = texts.map((t) => countTokens(t))
  const total = (allowance: number) => costs.reduce((sum, c) => sum + Math.min(c, allowance), 0)
  if (total(Number.POSITIVE_INFINITY) <= room) return [...texts]
  let low = 0
  let high = Math.max(0, ...costs)
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (total(mid) <= room) low = mid
    else high = mid - 1
  }
  return texts.map((t, i) => ((costs[i] ?? 0) <= low ? t : truncateToTokens(t, low)))
}

/**
 * Builds the prompt within `budgetTokens`, in this order of priority (docs/prompt.md):
 *
 * 1. the opening instruction (ours or the card's system prompt) and the language line (ADR 038),
 *    which always closes the system prompt;
 * 2. the lorebook: constant entries, then matched ones (lorebook.ts), within the book's token
 *    budget and a quarter of the prompt's budget, or more when the character's texts leave room;
 * 3. the character's description, personality and scenario, the user's persona description
 *    (ADR 049) and the memory note, shortened (longest first) only when the lore leaves them too little;
 * 4. the example dialogue, whole or left out;
 * 5. the conversation, newest first, as many messages as fit; the newest always goes in.
 *
 * Everything but the conversation, the card's post-history instructions and the chat's author's
 * note (each an eighth of the budget at most, kept before the conversation) takes at most half
 * the budget.
 */
export function buildPrompt(input: PromptInput): Prompt {
  const { character, userName, memoryNote, history, budgetTokens } = input
  const systemCap = Math.floor(budgetTokens / 2)
  // The language line closes the system prompt whatever else is cut (ADR 038): its room is kept first.
  const closing = `${input.sceneNote ? `${input.sceneNote}\n\n` : ''}${replyLanguageInstruction(input.language ?? null)}`
  const languageLine = `\n\n${replaceMacros(closing, { char: character.name, user: userName })}`
  const cap = systemCap - countTokens(languageLine)
  const texts: CharacterTexts = {
    description: character.description,
    personality: character.personality,
    scenario: character.scenario,
    memoryNote,
    persona: input.persona ?? '',
  }
  const persona = texts.persona
  const bare = systemCost(systemPromptOf(character, userName, '', { examples: false, texts: emptyTexts }))
  const whole = systemCost(systemPromptOf(character, userName, memoryNote, { examples: false, persona }))
  // The lore's share: a quarter of the budget, or all the room the character's texts leave.
  const loreCap = Math.min(cap - bare, Math.max(Math.floor(budgetTokens / 4), cap - whole))
  const older = input.olderExist ? input.olderCharacterMessages : 0
  const characterMessages =
    older === undefined ? undefined : older + history.filter((m) => m.author === 'assistant').length
  const lore = activeLore(character.lorebook, {
    scanned: history.map((m) => m.content),
    capTokens: loreCap,
    characterMessages,
  })
  const conversationLore = lore.conversation.length
    ? replaceMacros(lore.conversation.join('\n\n'), { char: character.name, user: userName })
    : ''
  // Lore placed after the conversation counts in the system prompt's half all the same.
  const room = cap - (conversationLore ? systemCost(conversationLore) - systemCost('') : 0)
  let system = systemPromptOf(character, userName, memoryNote, { lore, persona })
  if (systemCost(system) > room)
    system = systemPromptOf(character, userName, memoryNote, { examples: false, lore, persona })
  if (systemCost(system) > room) {
    const fixed = systemCost(systemPromptOf(character, userName, '', { examples: false, lore, texts: emptyTexts }))
    // Headings and macros make the sum of the parts a little off: the allowance shrinks until it fits.
    let textRoom = room - fixed
    for (let attempt = 0; attempt < 5 && systemCost(system) > room; attempt++) {
      const [description, personality, scenario, note, shortPersona] = shortenLongestFirst(
        [texts.description, texts.personality, texts.scenario, texts.memoryNote, texts.persona],
        Math.max(0, textRoom),
      ) as [string, string, string, string, string]
      system = systemPromptOf(character, userName, memoryNote, {
        examples: false,
        lore,
        texts: { description, personality, scenario, memoryNote: note, persona: shortPersona },
      })
      textRoom -= Math.max(1, systemCost(system) - room)
    }
  }
  if (systemCost(system) > room) system = truncateToTokens(system, Math.max(0, room - systemCost('')))
  system += languageLine
  let used = REPLY_PRIMING_TOKENS + systemCost(system) + shapingReserve(character.name)
  // The card's post-history instructions: an eighth of the budget at most. `@@depth` lore goes
  // before them, after the conversation.
  const names = { char: character.name, user: userName }
  let instructions =
    input.finalInstruction === undefined
      ? postHistoryOf(character, userName)
      : replaceMacros(input.finalInstruction, names)
  if (instructions) {
    const afterCap = Math.floor(budgetTokens / 8)
    if (systemCost(instructions) > afterCap)
      instructions = truncateToTokens(instructions, Math.max(0, afterCap - systemCost('')))
  }
  const after = [conversationLore, instructions.trim()].filter(Boolean).join('\n\n')
  if (after) used += systemCost(after)
  // The author's note: its room is kept before the conversation's, as the instructions' is.
  let note = input.authorNote?.text.trim() ? replaceMacros(input.authorNote.text.trim(), names) : ''
  if (note) {
    const noteCap = Math.floor(budgetTokens / 8)
    const frame = systemCost(`${AUTHOR_NOTE_OPEN}\n\n${AUTHOR_NOTE_CLOSE}\n\n`)
    if (systemCost(note) + frame > noteCap) note = truncateToTokens(note, Math.max(0, noteCap - frame)).trim()
    if (note) used += systemCost(note) + frame
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
      note: note ? { text: note, depth: input.authorNote?.depth ?? 0 } : undefined,
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
