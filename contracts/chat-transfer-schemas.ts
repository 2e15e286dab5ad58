import { z } from 'zod'

/** The answer of `POST /api/chat/import` (contracts/chat-transfer.ts has the lists and limits). */
export const chatImportResultSchema = z.object({
  /** The new chat. */
  sessionId: z.string(),
  /** Messages stored. */
  messages: z.number().int(),
  /** Alternatives stored, the shown ones included. */
  swipes: z.number().int(),
  /** Hidden messages (`is_system`) and messages without any text, left out. */
  leftOut: z.number().int(),
})
