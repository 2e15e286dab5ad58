import type { MessageAuthor } from '#contracts/chat.ts'
import { CHAT_IMPORT_LIMITS, type ChatImportError } from '#contracts/chat-transfer.ts'
import { AUTHOR_NOTE_LIMITS, cleanAuthorNote } from '#contracts/chat-writing-aids.ts'

/**
 * SillyTavern's chat file (JSONL), read and written (ADR 051). What SillyTavern writes, from its
 * source (`saveChat` and the message builders of public/script.js, src/endpoints/chats.js):
 *
 * - line 1, the header: `user_name`, `character_name`, `create_date` (its `humanizedDateTime()`,
 *   "2024-07-12@01h31m37s"; older files hold epoch milliseconds), `chat_metadata` (an object).
 * - one line per message: `name`, `is_user`, `is_system` (true: hidden from the prompt, or a
 *   comment), `send_date`, `mes` (the text shown), `extra` (an object); a reply also `swipes` (every
 *   alternative, `mes` among them), `swipe_id` (the one shown) and `swipe_info` (per alternative:
 *   `send_date`, `gen_started`, `gen_finished`, `extra`). A greeting with alternates has `swipes`
 *   and an empty `swipe_info`. Old files have `is_name` and no `is_system`.
 *
 * `send_date` comes in every style SillyTavern ever wrote, and all are read: epoch milliseconds (a
 * number or digits), "June 19, 2023 2:20pm", "2024-6-5 @14h 56m 50s 682ms", "2024-7-12@01h31m37s"
 * and ISO 8601. Chub's variant (a `mes` or swipe as `{ message }`) is flattened as SillyTavern does.
 */

/** A chat as it travels, whichever way. */
export type PortableChat = {
  userName: string
  characterName: string
  createdAt: Date
  messages: PortableMessage[]
  /**
   * The chat's author's note (ADR 053), in `chat_metadata` as SillyTavern keeps it (its
   * public/scripts/authors-note.js `metadata_keys`): `note_prompt`, `note_depth`, `note_interval`,
   * `note_position`, `note_role`. Left out or '' : none.
   */
  authorNote?: { text: string; depth: number } | undefined
}

/** SillyTavern's `note_position` "in chat" (its extension_prompt_types.IN_CHAT) and `note_role` system. */
const NOTE_IN_CHAT = 1
const NOTE_ROLE_SYSTEM = 0

export type PortableMessage = {
  author: MessageAuthor
  /** In a scene (ADR 052): the character who wrote this reply; absent: the chat's character. */
  speakerName?: string | null | undefined
  sentAt: Date
  /** The model that wrote the shown text, when known (written to `extra.model`). */
  modelId?: string | null
  /**
   * Every alternative, in order, the shown one at `shown`. A user message has exactly one: the
   * product keeps no alternatives of what the user wrote.
   */
  swipes: { content: string; sentAt: Date; modelId?: string | null }[]
  shown: number
}

/** Why a file was refused, with what the user needs to find the problem. */
export class ChatFileProblem extends Error {
  readonly reason: ChatImportError
  readonly details: { line?: number; field?: string; limit?: number }
  constructor(reason: ChatImportError, details: { line?: number; field?: string; limit?: number } = {}) {
    super(`chat file refused: ${reason}`)
    this.reason = reason
    this.details = details
  }
}

// ---------------------------------------------------------------------------------------------
// Dates

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]
// The range PostgreSQL's timestamptz and JavaScript's Date both hold without surprises.
const EARLIEST = Date.UTC(1970, 0, 1)
const LATEST = Date.UTC(9999, 11, 31)

const inRange = (ms: number) => (Number.isFinite(ms) && ms >= EARLIEST && ms <= LATEST ? new Date(ms) : null)

// SillyTavern wrote milliseconds as a number ("5ms", "05ms" and "005ms" are all 5).
const utc = (y: string, mo: string | number, d: string, h: string | number, mi: string, s = '0', ms = '0') =>
  inRange(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms)))

/**
 * A SillyTavern date, or null when it is none of its styles. The humanized and meridiem styles are
 * the writer's local time without a zone; like SillyTavern's own reader they are taken as UTC.
 */
export function parseSendDate(value: unknown): Date | null {
  if (typeof value === 'number') return inRange(value)
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (/^\d{1,15}$/.test(text)) return inRange(Number(text))
  // 2024-6-5 @14h 56m 50s 682ms, and 2024-7-12@01h31m37s
  const humanized = /^(\d{4})-(\d{1,2})-(\d{1,2}) ?@(\d{1,2})h ?(\d{1,2})m ?(\d{1,2})s(?: ?(\d{1,3})ms)?$/.exec(text)
  if (humanized) {
    const [, y, mo, d, h, mi, s, ms] = humanized as unknown as string[]
    return utc(y as string, mo as string, d as string, h as string, mi as string, s, ms ?? '0')
  }
  // June 19, 2023 2:20pm
  const meridiem = /^([A-Za-z]+) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{1,2}) ?(am|pm)$/i.exec(text)
  if (meridiem) {
    const [, monthName, d, y, h, mi, half] = meridiem as unknown as string[]
    const month = MONTHS.indexOf((monthName as string).toLowerCase())
    if (month < 0) return null
    const hour = (Number(h) % 12) + ((half as string).toLowerCase() === 'pm' ? 12 : 0)
    return utc(y as string, month + 1, d as string, hour, mi as string)
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    return inRange(Date.parse(text))
  }
  return null
}

const pad = (n: number) => String(n).padStart(2, '0')

/** SillyTavern's `humanizedDateTime()` style of the header's `create_date`, in UTC: "2024-07-12@01h31m37s". */
export function humanizedDate(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}@${pad(date.getUTCHours())}h${pad(date.getUTCMinutes())}m${pad(date.getUTCSeconds())}s`
}

// ---------------------------------------------------------------------------------------------
// Reading

type Line = { number: number; value: Record<string, unknown> }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function length(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

/** A text the database can store and within its bound; refused otherwise. */
function checkedText(text: string, line: number, field: string, limit: number): string {
  if (text.includes('\u0000') || !text.isWellFormed()) throw new ChatFileProblem('invalid_text', { line, field })
  // Code points are at most as many as UTF-16 units: only a long text needs counting.
  if (text.length > limit && length(text) > limit) throw new ChatFileProblem('too_large', { line, field, limit })
  return text
}

/** Chub writes a text as `{ message }`; SillyTavern flattens it on import, and so do we. */
const flat = (value: unknown): unknown => (isObject(value) && typeof value.message === 'string' ? value.message : value)

function readLines(text: string): Line[] {
  const lines: Line[] = []
  const raw = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  for (const [index, line] of raw.entries()) {
    if (!line.trim()) continue
    // The header and the messages: more lines than that is over the bound before any is parsed.
    if (lines.length > CHAT_IMPORT_LIMITS.messages) {
      throw new ChatFileProblem('too_large', { field: 'messages', limit: CHAT_IMPORT_LIMITS.messages })
    }
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      throw new ChatFileProblem('bad_line', { line: index + 1 })
    }
    if (!isObject(value)) throw new ChatFileProblem('bad_line', { line: index + 1 })
    lines.push({ number: index + 1, value })
  }
  return lines
}

function optionalName(value: unknown, line: number, field: string): string {
  if (value === undefined || value === null) return ''
  if (typeof value !== 'string') throw new ChatFileProblem(line === 1 ? 'no_header' : 'bad_message', { line, field })
  return checkedText(value, line, field, CHAT_IMPORT_LIMITS.nameLength)
}

/**
 * Reads a SillyTavern chat file. Hidden messages (`is_system`) are left out, as SillyTavern leaves
 * them out of the prompt, and so are messages with no text at all; `leftOut` counts both. Throws
 * ChatFileProblem for anything else that is not as SillyTavern writes it, or over a bound.
 */
export function readSillyTavernChat(
  text: string,
  now = new Date(),
): { chat: PortableChat; leftOut: number; texts: number } {
  const lines = readLines(text)
  const [header, ...rest] = lines
  if (!header) throw new ChatFileProblem('empty_file')
  const h = header.value
  if (!('user_name' in h || 'character_name' in h) || 'mes' in h) {
    throw new ChatFileProblem('no_header', { line: header.number })
  }
  const userName = optionalName(h.user_name, header.number, 'user_name')
  const characterName = optionalName(h.character_name, header.number, 'character_name')
  const created = parseSendDate(h.create_date)
  const authorNote = readAuthorNote(h.chat_metadata, header.number)

  const messages: PortableMessage[] = []
  let leftOut = 0
  let texts = 0
  let previous: Date | null = created
  for (const { number, value: m } of rest) {
    const mes = flat(m.mes)
    if (typeof mes !== 'string') throw new ChatFileProblem('bad_message', { line: number, field: 'mes' })
    for (const field of ['is_user', 'is_system'] as const) {
      if (m[field] !== undefined && m[field] !== null && typeof m[field] !== 'boolean') {
        throw new ChatFileProblem('bad_message', { line: number, field })
      }
    }
    optionalName(m.name, number, 'name')
    const content = checkedText(mes, number, 'mes', CHAT_IMPORT_LIMITS.textLength)
    const sentAt = parseSendDate(m.send_date) ?? previous ?? now
    previous = sentAt
    if (m.is_system === true) {
      leftOut++
      continue
    }
    const author: MessageAuthor = m.is_user === true ? 'user' : 'assistant'
    let swipes = [{ content, sentAt }]
    let shown = 0
    if (author === 'assistant' && m.swipes !== undefined && m.swipes !== null) {
      if (!Array.isArray(m.swipes)) throw new ChatFileProblem('bad_message', { line: number, field: 'swipes' })
      if (m.swipes.length > CHAT_IMPORT_LIMITS.swipesPerMessage) {
        throw new ChatFileProblem('too_large', {
          line: number,
          field: 'swipes',
          limit: CHAT_IMPORT_LIMITS.swipesPerMessage,
        })
      }
      const info = Array.isArray(m.swipe_info) ? m.swipe_info : []
      const listed = m.swipes.map((swipe, i) => {
        const swipeText = flat(swipe)
        if (typeof swipeText !== 'string') {
          throw new ChatFileProblem('bad_message', { line: number, field: `swipes.${i}` })
        }
        const about = info[i]
        const date = isObject(about) ? parseSendDate(about.send_date) : null
        return {
          content: checkedText(swipeText, number, `swipes.${i}`, CHAT_IMPORT_LIMITS.textLength),
          sentAt: date ?? sentAt,
        }
      })
      if (listed.length > 0) {
        const id = m.swipe_id
        const index =
          typeof id === 'number' && Number.isInteger(id) && id >= 0 && id < listed.length
            ? id
            : Math.max(
                0,
                listed.findIndex((s) => s.content === content),
              )
        // SillyTavern shows `mes`, and keeps it equal to the shown swipe when either is edited; a
        // file where they differ was edited by hand: the text shown wins.
        listed[index] = { content, sentAt: listed[index]?.sentAt ?? sentAt }
        swipes = listed
        shown = index
      }
    }
    if (swipes.every((s) => !s.content.trim())) {
      leftOut++
      continue
    }
    texts += swipes.length
    if (texts > CHAT_IMPORT_LIMITS.texts) {
      throw new ChatFileProblem('too_large', { line: number, field: 'texts', limit: CHAT_IMPORT_LIMITS.texts })
    }
    messages.push({ author, sentAt, swipes, shown })
  }
  if (messages.length === 0) throw new ChatFileProblem('no_messages')
  return {
    chat: { userName, characterName, createdAt: created ?? messages[0]?.sentAt ?? now, messages, authorNote },
    leftOut,
    texts,
  }
}

/**
 * The author's note of a header's `chat_metadata`. SillyTavern's note at a position other than "in
 * chat" (in the prompt, before or after the scenario) stands before the whole conversation here
 * (the deepest depth); its interval and role are not kept: the note is a system instruction in
 * every prompt. A depth beyond AUTHOR_NOTE_LIMITS.maxDepth is that depth; a text over the bound is refused.
 */
function readAuthorNote(metadata: unknown, line: number): PortableChat['authorNote'] {
  if (!isObject(metadata) || typeof metadata.note_prompt !== 'string') return undefined
  const text = cleanAuthorNote(
    checkedText(metadata.note_prompt, line, 'chat_metadata.note_prompt', AUTHOR_NOTE_LIMITS.text * 2),
  )
  if (!text) return undefined
  if (length(text) > AUTHOR_NOTE_LIMITS.text) {
    throw new ChatFileProblem('too_large', { line, field: 'chat_metadata.note_prompt', limit: AUTHOR_NOTE_LIMITS.text })
  }
  const rawDepth = Number(metadata.note_depth)
  const inChat = metadata.note_position === undefined || Number(metadata.note_position) === NOTE_IN_CHAT
  const depth = !inChat
    ? AUTHOR_NOTE_LIMITS.maxDepth
    : Number.isFinite(rawDepth)
      ? Math.min(AUTHOR_NOTE_LIMITS.maxDepth, Math.abs(Math.trunc(rawDepth)))
      : AUTHOR_NOTE_LIMITS.defaultDepth
  return { text, depth }
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * The chat as SillyTavern's JSONL, one JSON object a line, no trailing newline (as its `/save`
 * joins them). `send_date` is written as ISO 8601, which every style reader above (and SillyTavern)
 * reads back to the millisecond; `create_date` in SillyTavern's own humanized style.
 */
export function writeSillyTavernChat(chat: PortableChat): string {
  const lines: string[] = [
    JSON.stringify({
      user_name: chat.userName,
      character_name: chat.characterName,
      create_date: humanizedDate(chat.createdAt),
      chat_metadata: chat.authorNote?.text
        ? {
            note_prompt: chat.authorNote.text,
            note_interval: 1,
            note_depth: chat.authorNote.depth,
            note_position: NOTE_IN_CHAT,
            note_role: NOTE_ROLE_SYSTEM,
          }
        : {},
    }),
  ]
  for (const message of chat.messages) {
    const isUser = message.author === 'user'
    const shown = message.swipes[message.shown] ?? message.swipes[0]
    const extraOf = (modelId: string | null | undefined) => (modelId ? { model: modelId } : {})
    const line: Record<string, unknown> = {
      name: isUser ? chat.userName : (message.speakerName ?? chat.characterName),
      is_user: isUser,
      is_system: false,
      send_date: message.sentAt.toISOString(),
      mes: shown?.content ?? '',
      extra: extraOf(message.modelId),
    }
    if (!isUser) {
      line.swipes = message.swipes.map((s) => s.content)
      line.swipe_id = message.shown
      line.swipe_info = message.swipes.map((s) => ({ send_date: s.sentAt.toISOString(), extra: extraOf(s.modelId) }))
    }
    lines.push(JSON.stringify(line))
  }
  return lines.join('\n')
}

/**
 * The chat as Markdown to read: the character's name as the title, then each message under its
 * author's name and date, the shown alternative of a reply marked "‹2/3›" when it has others. No
 * words of the interface, so the file reads the same whatever the site's language.
 */
export function writeMarkdownChat(chat: PortableChat): string {
  const when = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
  // A name is one line of plain text here: no heading marks or line breaks of its own.
  const nameOf = (name: string) => name.replace(/[\r\n]+/g, ' ').replace(/^#+\s*/, '') || '—'
  const parts = [`# ${nameOf(chat.characterName)}`, '', `*${when(chat.createdAt)}*`]
  for (const message of chat.messages) {
    const name = nameOf(message.author === 'user' ? chat.userName : (message.speakerName ?? chat.characterName))
    const shown = message.swipes[message.shown] ?? message.swipes[0]
    const position = message.swipes.length > 1 ? ` ‹${message.shown + 1}/${message.swipes.length}›` : ''
    parts.push('', '---', '', `**${name}**${position} · ${when(message.sentAt)}`, '', shown?.content ?? '')
  }
  return `${parts.join('\n')}\n`
}
