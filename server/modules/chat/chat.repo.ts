import type { Db } from '#db/client.ts'
import type { ChatMessageRow } from '#db/schema/chat.ts'
import { createChatBranchesRepo } from './chat-branches.repo.ts'
import { createChatExtrasRepo } from './chat-extras.repo.ts'
import { createChatMessagesRepo } from './chat-messages.repo.ts'
import { createChatSendRepo } from './chat-send.repo.ts'
import { createChatSessionsRepo } from './chat-sessions.repo.ts'
import { createChatTidyRepo } from './chat-tidy.repo.ts'

export type { Tx } from '#db/client.ts'
export { type ReplyToStore, visibleChatRole } from './chat-rows.repo.ts'
export type { ChatMessageRow }

export type SessionView = NonNullable<Awaited<ReturnType<ReturnType<typeof createChatSendRepo>['findSession']>>>

/**
 * The chat's tables (sessions, messages, swipes), in parts: the send path's prepared
 * statements (chat-send.repo.ts), the sessions and their memory (chat-sessions.repo.ts), single
 * messages and swipes (chat-messages.repo.ts), branches (chat-branches.repo.ts), finding and tidying
 * chats (chat-tidy.repo.ts); what they share is in chat-rows.repo.ts.
 */
export function createChatRepo(db: Db) {
  return {
    ...createChatSendRepo(db),
    ...createChatSessionsRepo(db),
    ...createChatMessagesRepo(db),
    ...createChatBranchesRepo(db),
    ...createChatTidyRepo(db),
    ...createChatExtrasRepo(db),
  }
}

export type ChatRepo = ReturnType<typeof createChatRepo>
