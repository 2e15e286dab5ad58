import { z } from 'zod'
import { sessionIdSchema } from './chat-schemas.ts'
import { AUTHOR_NOTE_LIMITS } from './chat-writing-aids.ts'
import { LOCALES } from './locales.ts'

// The schemas of the author's note and impersonate (ADR 053); the limits and checks the browser
// uses are in chat-writing-aids.ts, which imports no zod.

export const authorNoteSchema = z.object({
  /** '' : no note. */
  text: z.string(),
  depth: z.number().int(),
})

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
