import { z } from 'zod'
import { messageIdSchema, sessionIdSchema } from './chat-schemas.ts'

// Branches of a chat (ADR 050): "Branch from here" and the links between a chat and its branches.
// The browser imports only the types (`import type`), so it does not ship zod for them.

export const branchBody = z.object({ sessionId: sessionIdSchema, messageId: messageIdSchema })

export const createdBranchSchema = z.object({
  /** The new chat. */
  sessionId: z.string(),
  /** Messages copied: the original's up to and including the one branched from. */
  copiedMessages: z.number().int(),
})

const linkedChatSchema = z.object({
  sessionId: z.string(),
  createdAt: z.string(),
  /** The start of its newest message, null for an empty chat. */
  lastMessage: z.string().nullable(),
})

export const branchLinksSchema = z.object({
  /** The chat this one was branched from; null when it was started afresh or that chat is deleted. */
  parent: linkedChatSchema
    .extend({
      /** The message of the parent the history was copied up to; null once deleted there. */
      messageId: z.number().int().nullable(),
    })
    .nullable(),
  /** Chats branched from this one, newest first (at most 50). */
  branches: z.array(
    linkedChatSchema.extend({
      /** The message of this chat the branch starts after; null once deleted here. */
      fromMessageId: z.number().int().nullable(),
    }),
  ),
})

export type CreatedBranch = z.infer<typeof createdBranchSchema>
export type ChatBranchLinks = z.infer<typeof branchLinksSchema>
