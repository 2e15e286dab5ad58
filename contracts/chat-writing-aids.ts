import { z } from 'zod'
import { sessionIdSchema } from './chat-schemas.ts'
import { LOCALES } from './locales.ts'

// Issue 22 item 8 (ADR 053): the author's note of a chat, and impersonate (the model drafts the
// user's next line, streamed into the composer, never stored).

export const AUTHOR_NOTE_LIMITS = {
  /** Characters (code points) of the note. */
  text: 2_000,
  /** 0: after the last message; N: before the Nth message from the end. */
  maxDepth: 100,
  /** A new chat's depth, as SillyTavern's default. */
  defaultDepth: 4,
} as const

export const authorNoteSchema = z.object({
  /** '' : no note. */
  text: z.string(),
  depth: z.number().int(),
})
export type AuthorNote = z.infer<typeof authorNoteSchema>

/** Why a field of the note is refused; the dialog words each (`authorNote.problems.<code>`). */
export type AuthorNoteProblem = { path: 'text' | 'depth'; code: 'too_long' | 'out_of_range'; limit: number }

const codePoints = (text: string) => [...text].length

/** A note as stored: line ends made `\n`, trimmed. */
export const cleanAuthorNote = (text: string) => text.replace(/\r\n?/g, '\n').trim()

/** Checks a note against AUTHOR_NOTE_LIMITS, in the browser and on the server; empty: it may be saved. */
export function checkAuthorNote(note: AuthorNote): AuthorNoteProblem[] {
  const problems: AuthorNoteProblem[] = []
  if (codePoints(cleanAuthorNote(note.text)) > AUTHOR_NOTE_LIMITS.text) {
    problems.push({ path: 'text', code: 'too_long', limit: AUTHOR_NOTE_LIMITS.text })
  }
  if (!Number.isInteger(note.depth) || note.depth < 0 || note.depth > AUTHOR_NOTE_LIMITS.maxDepth) {
    problems.push({ path: 'depth', code: 'out_of_range', limit: AUTHOR_NOTE_LIMITS.maxDepth })
  }
  return problems
}

/** Loose bounds here (the body is read only once the chat is known to be the caller's); `checkAuthorNote` words the exact ones. */
export const updateAuthorNoteBody = z.object({
  sessionId: z.uuid(),
  text: z.string().max(AUTHOR_NOTE_LIMITS.text * 8),
  depth: z.number().int().min(-1_000_000).max(1_000_000),
})

/** Impersonate: the chat's model (or `chatModelId`) drafts the user's next line. */
export const impersonateBody = z.object({
  sessionId: sessionIdSchema,
  chatModelId: z.string().min(1).max(100).optional(),
  locale: z.enum(LOCALES).optional(),
})

/** The end of a draft: its text, what it cost and the balance after. */
export const impersonateDoneSchema = z.object({
  content: z.string(),
  modelId: z.string(),
  diamondsSpent: z.number().int(),
  balance: z.number().int(),
})
export type ImpersonateDone = z.infer<typeof impersonateDoneSchema>
