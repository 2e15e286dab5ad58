import { AppError } from '#server/lib/errors.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import type { ChatRepo } from './chat.repo.ts'
import { checkText, replyInProgress, toChatMessage } from './chat-views.ts'
import type { ChatSessions } from './sessions.ts'
import type { TurnSlots } from './turn-slots.ts'

export type SwipesEditsDeps = {
  repo: Pick<
    ChatRepo,
    | 'findMessage'
    | 'listSwipes'
    | 'selectSwipe'
    | 'editUserMessage'
    | 'deleteMessage'
    | 'messageAfter'
    | 'hasMessageBefore'
  >
  sessions: Pick<ChatSessions, 'requireSession'>
  slots: Pick<TurnSlots, 'busy'>
}

/**
 * Changes to the conversation that ask no model: the alternatives of a reply (swipes), editing a
 * message of the user's (the later ones go; "resend" is then a regenerate) and deleting one.
 * None runs while a reply is being written in the session.
 */
export function createSwipesEdits({ repo, sessions, slots }: SwipesEditsDeps) {
  const { requireSession } = sessions
  return {
    async listSwipes(userId: string, sessionId: string, messageId: number) {
      await requireSession(sessionId, userId)
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      const swipes = await repo.listSwipes(messageId)
      return {
        messageId,
        selectedIndex: message.swipeIndex,
        swipes: swipes.map((s, index) => ({
          index,
          content: s.content,
          status: s.status,
          modelId: s.modelId,
          createdAt: s.createdAt.toISOString(),
        })),
      }
    },

    async selectSwipe(userId: string, sessionId: string, messageId: number, swipeIndex: number) {
      await requireSession(sessionId, userId)
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      if (swipeIndex >= message.swipeCount) {
        throw AppError.badRequest('No such alternative.', { swipeCount: message.swipeCount })
      }
      // The greeting is chosen before the user's first message; once they wrote, it stays (ADR 050).
      if (
        message.author === 'assistant' &&
        (await repo.messageAfter(sessionId, messageId)) &&
        !(await repo.hasMessageBefore(sessionId, messageId))
      ) {
        throw AppError.conflict('The greeting was chosen when the conversation began; it stays as it is.')
      }
      const updated = await repo.selectSwipe(sessionId, messageId, swipeIndex)
      if (!updated) throw AppError.notFound('No such message')
      return toChatMessage(updated)
    },

    /** Edits one of the user's messages; the later messages go (the chat continues from it). */
    async editMessage(userId: string, sessionId: string, messageId: number, content: string) {
      await tokenizerReady()
      await requireSession(sessionId, userId)
      checkText(content)
      if (slots.busy(sessionId)) throw replyInProgress()
      const message = await repo.findMessage(sessionId, messageId)
      if (!message) throw AppError.notFound('No such message')
      if (message.author !== 'user') throw AppError.forbidden('Only your own messages can be edited.')
      const edited = await repo.editUserMessage(sessionId, messageId, content, countTokens(content))
      if (!edited) throw AppError.notFound('No such message')
      return { message: toChatMessage(edited.message), removedMessageIds: edited.removedIds }
    },

    async deleteMessage(userId: string, sessionId: string, messageId: number) {
      await requireSession(sessionId, userId)
      if (slots.busy(sessionId)) throw replyInProgress()
      if (!(await repo.deleteMessage(sessionId, messageId))) throw AppError.notFound('No such message')
      return { deleted: true as const }
    },
  }
}
