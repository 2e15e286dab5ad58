import type { TFunction } from 'i18next'
import { deleteSession } from '#app/features/chat/api.ts'
import { chatDeleted, refreshMyChats } from '#app/features/chat/my-chats.ts'
import { restoreSession } from '#app/features/chat/tidy-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { notify } from '#app/lib/notify.tsx'
import { CHAT_UNDO_WINDOW_MS } from '#contracts/chat-tidy.ts'

/**
 * Deletes a chat and offers "Undo" for as long as the server keeps it (ADR 048). Resolves true once
 * deleted. `onRestored` runs after an undo went through (the chat is back in My Chats by then).
 */
export async function deleteChatWithUndo(
  sessionId: string,
  t: TFunction<'chat'>,
  tCommon: TFunction,
  onRestored?: () => void,
): Promise<boolean> {
  try {
    await deleteSession(sessionId)
  } catch (error) {
    notify(apiErrorMessage(tCommon, error), { type: 'error' })
    return false
  }
  chatDeleted(sessionId)
  notify(t('deleted'), {
    type: 'success',
    // A little shorter than the server's window, so "Undo" is never offered once too late.
    duration: CHAT_UNDO_WINDOW_MS - 1000,
    action: {
      label: t('tidy.undo'),
      onClick: () => {
        restoreSession(sessionId).then(
          async () => {
            await refreshMyChats()
            notify(t('tidy.restored'), { type: 'success' })
            onRestored?.()
          },
          (error: unknown) => notify(apiErrorMessage(tCommon, error), { type: 'error' }),
        )
      },
    },
  })
  return true
}
