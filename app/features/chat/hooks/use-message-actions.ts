import type { Dispatch, SetStateAction } from 'react'
import { deleteMessage, selectSwipe, editMessage as updateMessage } from '#app/features/chat/api.ts'
import { swipeStep } from '#app/features/chat/reply-problems.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { CHAT_MESSAGE_MAX_LENGTH, type ChatMessage, messageLength } from '#contracts/chat.ts'

type Options = {
  sessionId: string
  setMessages: Dispatch<SetStateAction<ChatMessage[]>>
  /** Writes a new reply to the last message (a swipe past the end, or after an edit). */
  regenerate: () => void
}

/** What can be done to one message: swipe between the alternatives of a reply, edit, delete. */
export function useMessageActions({ sessionId, setMessages, regenerate }: Options) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const failed = (error: unknown) => notify(apiErrorMessage(tCommon, error), { type: 'error' })
  const replace = (updated: ChatMessage) => setMessages((list) => list.map((m) => (m.id === updated.id ? updated : m)))

  const swipe = async (message: ChatMessage, direction: -1 | 1) => {
    const step = swipeStep(message, direction)
    if (step.kind === 'regenerate') regenerate()
    if (step.kind !== 'select') return
    try {
      replace((await selectSwipe(sessionId, message.id, step.index)).message)
    } catch (error) {
      failed(error)
    }
  }

  const edit = async (message: ChatMessage, content: string) => {
    if (messageLength(content) > CHAT_MESSAGE_MAX_LENGTH) {
      notify(t('tooLong', { count: CHAT_MESSAGE_MAX_LENGTH }), { type: 'error' })
      return
    }
    try {
      const { message: updated, removedMessageIds } = await updateMessage(sessionId, message.id, content)
      setMessages((list) =>
        list.filter((m) => !removedMessageIds.includes(m.id)).map((m) => (m.id === updated.id ? updated : m)),
      )
      // The conversation continues from the edited message.
      regenerate()
    } catch (error) {
      failed(error)
    }
  }

  const remove = async (message: ChatMessage) => {
    try {
      await deleteMessage(sessionId, message.id)
      setMessages((list) => list.filter((m) => m.id !== message.id))
    } catch (error) {
      failed(error)
    }
  }

  return { swipe, edit, remove }
}
