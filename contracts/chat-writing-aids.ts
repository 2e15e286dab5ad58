import type { z } from 'zod'
import type { authorNoteSchema, impersonateDoneSchema } from './chat-writing-aids-schemas.ts'

// Issue 22 item 8 (ADR 053): the author's note of a chat, and impersonate (the model drafts the
// user's next line, streamed into the composer, never stored). No zod here: the chat page imports
// these limits and checks (the schemas are in chat-writing-aids-schemas.ts).

export const AUTHOR_NOTE_LIMITS = {
  /** Characters (code points) of the note. */
  text: 2_000,
  /** 0: after the last message; N: before the Nth message from the end. */
  maxDepth: 100,
  /** A new chat's depth, as SillyTavern's default. */
  defaultDepth: 4,
} as const

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

export type ImpersonateDone = z.infer<typeof impersonateDoneSchema>
