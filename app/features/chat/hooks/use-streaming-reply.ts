import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { isValidReply, stopReply, streamReply } from '#app/features/chat/api.ts'
import { chatUpdated } from '#app/features/chat/my-chats.ts'
import {
  failedReplyProblem,
  type Problem,
  refusedReplyProblem,
  withMessage,
} from '#app/features/chat/reply-problems.ts'
import { ApiError } from '#app/lib/http.ts'
import { setPoints } from '#app/lib/points.ts'
import type { ChatMessage, ChatSessionDetail, ChatStreamEvent } from '#contracts/chat.ts'

type Options = {
  sessionId: string
  modelId: string
  setMessages: Dispatch<SetStateAction<ChatMessage[]>>
  setSession: Dispatch<SetStateAction<ChatSessionDetail | null>>
  /** Loads the conversation as the server stored it, after a failure. */
  reload: () => Promise<{ page: { items: ChatMessage[] } }>
  /** A message the server did not keep goes back into the text box. */
  giveBack: (text: string) => void
  /** Called as a reply starts, so the list follows it. */
  onStart: () => void
}

export type StreamingReply = {
  /** A reply is being written (send, regenerate): the page disables what would race it. */
  busy: boolean
  /** The user's message until the server stored it. */
  pendingUser: string | null
  /** The reply's text so far, '' before the first piece; null when none is streaming. */
  streaming: string | null
  problem: Problem | null
  dismissProblem: () => void
  send: (message: string) => void
  regenerate: () => void
  stop: () => Promise<void>
}

/**
 * One send or regeneration through the reply stream, keeping the page in step with the server:
 * the stored user message, the pieces of the reply, the stored reply with the new balance and
 * gauge, or the Connection Error with what the server kept.
 */
export function useStreamingReply(options: Options): StreamingReply {
  const { sessionId, modelId, setMessages, setSession, reload, giveBack, onStart } = options
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [pendingUser, setPendingUser] = useState<string | null>(null)
  const [streaming, setStreaming] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<Problem | null>(null)
  const abort = useRef<AbortController | null>(null)

  // Leaving the conversation stops reading its stream (the server finishes and stores the reply).
  useEffect(() => () => abort.current?.abort(), [])

  const run = async (kind: 'send' | 'regenerate', message?: string) => {
    setBusy(true)
    setStreaming('')
    onStart()
    const controller = new AbortController()
    abort.current = controller
    let finished = false
    const onEvent = (event: ChatStreamEvent) => {
      switch (event.event) {
        case 'start':
          setPendingUser(null)
          if (event.data.userMessage) {
            const stored = event.data.userMessage
            setMessages((list) => [...list, stored])
          }
          return
        case 'delta':
          setStreaming((current) => (current ?? '') + event.data.text)
          return
        case 'done': {
          finished = true
          if (!isValidReply(event.data)) throw new ApiError(500, 'INTERNAL_ERROR', 'Invalid server response format')
          const { reply, balance, context } = event.data
          setMessages((list) => withMessage(list, reply))
          setSession((current) => (current ? { ...current, context } : current))
          setPoints(balance)
          chatUpdated(sessionId, reply.content.slice(0, 200))
          return
        }
        case 'stopped': {
          finished = true
          const { reply } = event.data
          if (reply) setMessages((list) => withMessage(list, reply))
          return
        }
        case 'error': {
          finished = true
          const { reply } = event.data
          if (reply) setMessages((list) => withMessage(list, reply))
          setProblem(failedReplyProblem(t, tCommon, event.data))
          return
        }
      }
    }
    try {
      await streamReply(
        kind,
        { sessionId, message, chatModelId: modelId || undefined, requestId: crypto.randomUUID() },
        onEvent,
        controller.signal,
      )
      if (!finished && !controller.signal.aborted)
        throw new ApiError(0, 'NETWORK_ERROR', 'The reply stream ended early.')
    } catch (error) {
      if (!controller.signal.aborted) setProblem(refusedReplyProblem(t, tCommon, error))
      // The server is the record: show what it stored, and give back any text it did not keep.
      try {
        const { page } = await reload()
        if (message && !page.items.some((m) => m.author === 'user' && m.content === message)) giveBack(message)
      } catch {
        if (message) giveBack(message)
      }
    } finally {
      abort.current = null
      setPendingUser(null)
      setStreaming(null)
      setBusy(false)
    }
  }

  return {
    busy,
    pendingUser,
    streaming,
    problem,
    dismissProblem: () => setProblem(null),
    send: (message) => {
      setPendingUser(message)
      void run('send', message)
    },
    regenerate: () => void run('regenerate'),
    stop: async () => {
      try {
        await stopReply(sessionId)
      } catch {
        abort.current?.abort()
      }
    },
  }
}
