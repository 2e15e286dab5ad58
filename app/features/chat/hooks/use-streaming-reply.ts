import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from 'react'
import { isValidReply, stopReply, streamReply } from '#app/features/chat/api.ts'
import { chatUpdated } from '#app/features/chat/my-chats.ts'
import {
  failedReplyProblem,
  type Problem,
  refusedReplyProblem,
  withMessage,
} from '#app/features/chat/reply-problems.ts'
import { ApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { setPoints } from '#app/lib/points.ts'
import type { ChatMessage, ChatSessionDetail, ChatStreamEvent } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

type Kind = 'send' | 'regenerate' | 'continue' | 'speak'

/** Where a reply's thinking is kept for this page view: the message and the alternative shown. */
export const thoughtKey = (message: Pick<ChatMessage, 'id' | 'swipeIndex'>) => `${message.id}:${message.swipeIndex}`

type Options = {
  sessionId: string
  locale: Locale
  modelId: string
  setMessages: Dispatch<SetStateAction<ChatMessage[]>>
  setSession: Dispatch<SetStateAction<ChatSessionDetail | null>>
  /** Loads the conversation as the server stored it, after a failure. */
  reload: () => Promise<{ page: { items: ChatMessage[] } }>
  /** A message the server did not keep goes back into the text box. */
  giveBack: (text: string) => void
  /** Called as a reply starts, so the list follows it. */
  onStart: () => void
  /** Called when a reply failed (the page checks again whether any model can be reached). */
  onFailure: () => void
}

export type StreamingReply = {
  /** A reply is being written (send, regenerate): the page disables what would race it. */
  busy: boolean
  /** The user's message until the server stored it. */
  pendingUser: string | null
  /** The reply's text so far, '' before the first piece; null when none is streaming. */
  streaming: string | null
  /** The model's thinking so far (reasoning events), null when it sent none. Never stored. */
  reasoning: string | null
  /** The reply being continued (its text so far is `streaming`), null for a new reply. */
  continuingId: number | null
  /** The thinking behind the replies written in this page view, by thoughtKey; gone on reload. */
  thoughts: ReadonlyMap<string, string>
  problem: Problem | null
  dismissProblem: () => void
  /** Offered by the Connection Error when `problem.retry`: the same kind of turn again. */
  retry: () => void
  send: (message: string) => void
  regenerate: () => void
  /** "Regenerate with…" (ADR 053): a new alternative of the last reply written by this model. */
  regenerateWith: (modelId: string) => void
  /** Extends the last reply (one cut at its length), this message, in place. */
  continueReply: (messageId: number) => void
  stop: () => Promise<void>
  /** In a scene (ADR 052): the member writing the reply being streamed, when the server named one. */
  speaker: { id: string; name: string } | null
  /** "Let … speak": a reply by that member with no new message. */
  speak: (speakerId: string) => void
}

/**
 * One send, regeneration or continuation through the reply stream, keeping the page in step with
 * the server: the stored user message, the model's thinking and the pieces of the reply, the
 * stored reply with the new balance and gauge, or the Connection Error with what the server kept.
 */
export function useStreamingReply(options: Options): StreamingReply {
  const { sessionId, locale, modelId, setMessages, setSession, reload, giveBack, onStart, onFailure } = options
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [pendingUser, setPendingUser] = useState<string | null>(null)
  const [streaming, setStreaming] = useState<string | null>(null)
  const [reasoning, setReasoning] = useState<string | null>(null)
  const [continuingId, setContinuingId] = useState<number | null>(null)
  const [thoughts, setThoughts] = useState<ReadonlyMap<string, string>>(new Map())
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<Problem | null>(null)
  const lastKind = useRef<Kind>('regenerate')
  const continued = useRef<number | null>(null)
  const spoke = useRef<string | null>(null)
  const [speaker, setSpeaker] = useState<{ id: string; name: string } | null>(null)
  const abort = useRef<AbortController | null>(null)

  // Leaving the conversation stops reading its stream (the server finishes and stores the reply).
  useEffect(() => () => abort.current?.abort(), [])

  const run = async (
    kind: Kind,
    message?: string,
    continuing?: number,
    { model = modelId, speakerId }: { model?: string; speakerId?: string | undefined } = {},
  ) => {
    lastKind.current = kind
    spoke.current = speakerId ?? null
    continued.current = continuing ?? null
    setBusy(true)
    setStreaming('')
    setReasoning(null)
    setContinuingId(continuing ?? null)
    onStart()
    const controller = new AbortController()
    abort.current = controller
    let finished = false
    let thought = ''
    // What the model thought stays beside the reply it led to, for this page view only.
    const keep = (reply: ChatMessage | null) => {
      if (reply && thought) setThoughts((map) => new Map(map).set(thoughtKey(reply), thought))
    }
    const onEvent = (event: ChatStreamEvent) => {
      switch (event.event) {
        case 'start':
          setPendingUser(null)
          setSpeaker(event.data.speaker ?? null)
          if (event.data.userMessage) {
            const stored = event.data.userMessage
            setMessages((list) => [...list, stored])
          }
          return
        case 'reasoning':
          thought += event.data.text
          setReasoning(thought)
          return
        case 'delta':
          setStreaming((current) => (current ?? '') + event.data.text)
          return
        case 'done': {
          finished = true
          if (!isValidReply(event.data)) throw new ApiError(500, 'INTERNAL_ERROR', 'Invalid server response format')
          const { reply, balance, context } = event.data
          keep(reply)
          setMessages((list) => withMessage(list, reply))
          setSession((current) => (current ? { ...current, context } : current))
          setPoints(balance)
          chatUpdated(sessionId, reply.content.slice(0, 200))
          return
        }
        case 'stopped': {
          finished = true
          const { reply } = event.data
          keep(reply)
          if (reply) setMessages((list) => withMessage(list, reply))
          return
        }
        case 'error': {
          finished = true
          const { reply } = event.data
          keep(reply)
          if (reply) setMessages((list) => withMessage(list, reply))
          // The model being prepared is no error to dismiss: the page's notice shows its progress
          // and the stranded message keeps its Retry (ADR 037).
          if (event.data.code !== 'MODEL_PREPARING') setProblem(failedReplyProblem(t, tCommon, locale, event.data))
          onFailure()
          return
        }
      }
    }
    try {
      await streamReply(
        kind,
        // The interface's language: the model writes in it unless the chat has its own (ADR 038).
        {
          sessionId,
          message,
          chatModelId: model || undefined,
          requestId: crypto.randomUUID(),
          locale,
          ...(speakerId ? { speaker: speakerId } : {}),
        },
        onEvent,
        controller.signal,
      )
      if (!finished && !controller.signal.aborted)
        throw new ApiError(0, 'NETWORK_ERROR', 'The reply stream ended early.')
    } catch (error) {
      if (!controller.signal.aborted) {
        setProblem(refusedReplyProblem(t, tCommon, error))
        onFailure()
      }
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
      setReasoning(null)
      setContinuingId(null)
      setSpeaker(null)
      setBusy(false)
    }
  }

  const regenerate = () => void run('regenerate')
  // Continue extends the reply shown last; its streamed text is appended to it as it comes.
  const continueReply = (messageId: number) => void run('continue', undefined, messageId)

  return {
    busy,
    pendingUser,
    streaming,
    reasoning,
    continuingId,
    thoughts,
    problem,
    dismissProblem: () => setProblem(null),
    retry: () => {
      setProblem(null)
      // A failed send stored the message (or gave it back): a retry asks for the reply it never got.
      if (lastKind.current === 'continue' && continued.current !== null) continueReply(continued.current)
      else if (lastKind.current === 'speak' && spoke.current !== null)
        void run('speak', undefined, undefined, { speakerId: spoke.current })
      else regenerate()
    },
    send: (message) => {
      setPendingUser(message)
      void run('send', message)
    },
    regenerate,
    regenerateWith: (model) => void run('regenerate', undefined, undefined, { model }),
    continueReply,
    speaker,
    speak: (speakerId) => void run('speak', undefined, undefined, { speakerId }),
    stop: async () => {
      try {
        await stopReply(sessionId)
      } catch {
        abort.current?.abort()
      }
    },
  }
}
