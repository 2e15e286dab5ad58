import { useCallback, useEffect, useRef, useState } from 'react'
import { useNavigate } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { branchFrom, getBranchLinks } from '#app/features/chat/branches-api.ts'
import { refreshMyChats } from '#app/features/chat/my-chats.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { ChatMessage } from '#contracts/chat.ts'
import type { ChatBranchLinks } from '#contracts/chat-branches.ts'

/**
 * A chat's branches (ADR 050): where it was branched from and its branches (null until loaded, and
 * when they could not be read: the chat works without them), and "Branch from here", which opens
 * the new chat.
 */
export function useBranches(sessionId: string) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const [links, setLinks] = useState<ChatBranchLinks | null>(null)
  const branching = useRef(false)

  useEffect(() => {
    let current = true
    setLinks(null)
    getBranchLinks(sessionId).then(
      (found) => current && setLinks(found),
      () => {},
    )
    return () => {
      current = false
    }
  }, [sessionId])

  const branch = useCallback(
    async (message: ChatMessage) => {
      // One branch per click: a second click while the first is on its way does nothing.
      if (branching.current) return
      branching.current = true
      try {
        const created = await branchFrom(sessionId, message.id)
        // The branch joins My Chats as the server lists it (one holding only the greeting is not history).
        void refreshMyChats()
        notify(t('branches.created'), { type: 'success' })
        navigate(localize(`/chat/${created.sessionId}`))
      } catch (error) {
        notify(apiErrorMessage(tCommon, error), { type: 'error' })
      } finally {
        branching.current = false
      }
    },
    [sessionId, navigate, localize, t, tCommon],
  )

  return { links, branch }
}
