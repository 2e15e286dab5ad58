import { type Dispatch, type SetStateAction, useCallback, useEffect, useState } from 'react'
import { getMessages, getModels, getSession } from '#app/features/chat/api.ts'
import type { ChatMessage, ChatProvider, ChatSessionDetail, PublicModel } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

export type ChatSession = {
  session: ChatSessionDetail | null
  setSession: Dispatch<SetStateAction<ChatSessionDetail | null>>
  /** Oldest first, as shown. */
  messages: ChatMessage[]
  setMessages: Dispatch<SetStateAction<ChatMessage[]>>
  /** Where the next page of earlier messages starts; null when all are loaded. */
  nextBefore: number | null
  /** Why the chat could not be opened (to word with apiErrorMessage), or null. */
  loadFailure: { error: unknown } | null
  models: PublicModel[]
  /** False when /api/models says no model server can be reached right now (ADR 031). */
  anyReachable: boolean
  /** What serves chat; while the embedded model is being prepared, read again every few seconds (ADR 037). */
  chatProvider: ChatProvider | null
  /** Asks /api/models again whether any model server can be reached (after a failed reply). */
  checkReachable: () => Promise<void>
  modelId: string
  setModelId: (modelId: string) => void
  /** Loads the session and its newest messages again: the server is the record after a failure. */
  reload: () => Promise<{ detail: ChatSessionDetail; page: { items: ChatMessage[] } }>
  /** Prepends the previous page of messages. */
  loadEarlier: () => Promise<void>
}

/** One conversation as the server holds it: its details, its messages (newest page first) and the models. */
export function useChatSession(sessionId: string, locale: Locale): ChatSession {
  const [session, setSession] = useState<ChatSessionDetail | null>(null)
  const [messages, setMessages] = useState<ChatMessage[]>([])
  const [nextBefore, setNextBefore] = useState<number | null>(null)
  const [loadFailure, setLoadFailure] = useState<{ error: unknown } | null>(null)
  const [models, setModels] = useState<PublicModel[]>([])
  const [anyReachable, setAnyReachable] = useState(true)
  const [chatProvider, setChatProvider] = useState<ChatProvider | null>(null)
  const [modelId, setModelId] = useState('')

  const reload = useCallback(async () => {
    const [detail, page] = await Promise.all([getSession(sessionId, locale), getMessages(sessionId)])
    setSession(detail)
    setMessages([...page.items].reverse())
    setNextBefore(page.nextBefore)
    return { detail, page }
  }, [sessionId, locale])

  useEffect(() => {
    let cancelled = false
    setSession(null)
    setMessages([])
    setLoadFailure(null)
    Promise.all([reload(), getModels()]).then(
      ([{ detail }, list]) => {
        if (cancelled) return
        setModels(list.models)
        setAnyReachable(list.anyReachable)
        setChatProvider(list.chatProvider)
        setModelId(detail.modelId ?? list.defaultModelId)
      },
      (error: unknown) => {
        if (!cancelled) setLoadFailure({ error })
      },
    )
    return () => {
      cancelled = true
    }
  }, [reload])

  const checkReachable = useCallback(async () => {
    try {
      const list = await getModels(true)
      setAnyReachable(list.anyReachable)
      setChatProvider(list.chatProvider)
    } catch {
      // The notice stays as it was; the failure itself is already shown.
    }
  }, [])

  // The preparing notice follows the download: every few seconds while it runs, every half minute
  // after a failure (the server tries again, or the operator places the file), never once ready.
  const preparingState = chatProvider?.kind === 'embedded' ? chatProvider.state : 'ready'
  useEffect(() => {
    if (preparingState === 'ready') return
    const timer = setInterval(() => void checkReachable(), preparingState === 'failed' ? 30_000 : 3_000)
    return () => clearInterval(timer)
  }, [preparingState, checkReachable])

  const loadEarlier = async () => {
    if (nextBefore === null) return
    const page = await getMessages(sessionId, nextBefore)
    setMessages((list) => [...[...page.items].reverse(), ...list])
    setNextBefore(page.nextBefore)
  }

  return {
    session,
    setSession,
    messages,
    setMessages,
    nextBefore,
    loadFailure,
    models,
    anyReachable,
    chatProvider,
    checkReachable,
    modelId,
    setModelId,
    reload,
    loadEarlier,
  }
}
