import type { z } from 'zod'
import type { chatImportResultSchema } from './chat-transfer-schemas.ts'

/**
 * A chat's history in and out (issue 22 item 6, ADR 051): a chat downloads as SillyTavern's JSONL
 * chat file or as readable Markdown, and a SillyTavern JSONL chat file becomes a chat with one of
 * the user's characters. No zod here: the pages import these lists (the schema is in
 * chat-transfer-schemas.ts).
 */

/** `format` of `GET /api/chat/sessions/:id/export`. */
export const CHAT_EXPORT_FORMATS = ['sillytavern', 'markdown'] as const
export type ChatExportFormat = (typeof CHAT_EXPORT_FORMATS)[number]

/**
 * Bounds of an imported chat file, each refused (nothing stored) rather than cut. Sized on long
 * role-play chats with headroom: a chat of a few thousand messages with a handful of swipes each is
 * a few megabytes; a single reply rarely passes 20,000 characters.
 */
export const CHAT_IMPORT_LIMITS = {
  /** The file's bytes. */
  fileBytes: 10 * 1024 * 1024,
  /** Messages after the header line. */
  messages: 10_000,
  /** Alternatives (swipes) of one message. */
  swipesPerMessage: 256,
  /** Every text stored: shown messages and alternatives together. */
  texts: 50_000,
  /** One message's or alternative's characters (code points). */
  textLength: 100_000,
  /** The header's and a message's names. */
  nameLength: 256,
} as const

/** Importing chat files is limited per user: a person brings a few chats over at a time. */
export const CHAT_IMPORT_RATE_LIMIT = { max: 20, windowMs: 60 * 60_000 } as const

/** `details.reason` of a refused chat file (INVALID_CHAT_FILE; 413 PAYLOAD_TOO_LARGE for `too_large`). */
export const CHAT_IMPORT_ERRORS = [
  /** No file, or only blank lines. */
  'empty_file',
  /** A line that is not JSON, or not a JSON object (`details.line`). */
  'bad_line',
  /** The first line is not a SillyTavern chat header (`user_name`, `character_name`). */
  'no_header',
  /** A message line without its text (`mes`) or with fields of the wrong kind (`details.line`). */
  'bad_message',
  /** No message left to import (hidden ones are left out). */
  'no_messages',
  /** Over CHAT_IMPORT_LIMITS (`details.field`, `details.limit`, `details.line` say which). */
  'too_large',
  /** Text that cannot be stored: a NUL character or a broken UTF-16 surrogate (`details.line`). */
  'invalid_text',
] as const
export type ChatImportError = (typeof CHAT_IMPORT_ERRORS)[number]

export type ChatImportResult = z.infer<typeof chatImportResultSchema>
