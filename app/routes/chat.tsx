import { Brain, Gem, Send, Square, Trash2 } from 'lucide-react'
import { type FormEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import {
  deleteMessage,
  deleteSession,
  getMessages,
  getModels,
  getSession,
  isValidReply,
  selectSwipe,
  stopReply,
  streamReply,
  editMessage as updateMessage,
} from '#app/features/chat/api.ts'
import { ConnectionErrorDialog } from '#app/features/chat/components/connection-error-dialog.tsx'
import { MemoryPanel } from '#app/features/chat/components/memory-panel.tsx'
import { MessageItem, StreamingItem } from '#app/features/chat/components/message-item.tsx'
import { chatDeleted, chatUpdated } from '#app/features/chat/my-chats.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber } from '#app/lib/format.ts'
import { ApiError } from '#app/lib/http.ts'
import { notify } from '#app/lib/notify.tsx'
import { setPoints, usePoints } from '#app/lib/points.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import {
  CHAT_MESSAGE_MAX_LENGTH,
  type ChatMessage,
  type ChatSessionDetail,
  type ChatStreamEvent,
  messageLength,
  type PublicModel,
} from '#contracts/chat.ts'

export const handle = { i18n: ['chat'] }

type Problem = { message: string; details: string; retry: boolean }

/** `/chat/:id`: one conversation, loaded in the browser (it is private to its user). */
export default function Chat() {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const params = useParams()
  const sessionId = params.id ?? ''
  const locale = routeLocale(params)
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const { points } = usePoints()

  const [session, setSession] = useState<ChatSessionDetail | null>(null)
  const [messages, setMessages] = useState<ChatMessage[]>([])
  const [nextBefore, setNextBefore] = useState<number | null>(null)
  const [loadError, setLoadError] = useState<string | null>(null)
  const [models, setModels] = useState<PublicModel[]>([])
  const [modelId, setModelId] = useState('')
  const [text, setText] = useState('')
  const [pendingUser, setPendingUser] = useState<string | null>(null)
  const [streaming, setStreaming] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<Problem | null>(null)
  const [memoryOpen, setMemoryOpen] = useState(false)
  const scroller = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const abort = useRef<AbortController | null>(null)

  const roleName = session?.role?.name ?? t('unknownRole')
  const roleAvatar = session?.role?.avatar ?? null

  const reload = useCallback(async () => {
    const [detail, page] = await Promise.all([getSession(sessionId), getMessages(sessionId)])
    setSession(detail)
    setMessages([...page.items].reverse())
    setNextBefore(page.nextBefore)
    return { detail, page }
  }, [sessionId])

  useEffect(() => {
    let cancelled = false
    setSession(null)
    setMessages([])
    setLoadError(null)
    stick.current = true
    Promise.all([reload(), getModels()]).then(
      ([{ detail }, list]) => {
        if (cancelled) return
        setModels(list.models)
        setModelId(detail.modelId ?? list.defaultModelId)
      },
      (error: unknown) => {
        if (cancelled) return
        setLoadError(
          error instanceof ApiError && error.error === 'INVALID_SESSION'
            ? t('errors.invalidSession')
            : t('errors.load'),
        )
      },
    )
    return () => {
      cancelled = true
      abort.current?.abort()
    }
  }, [reload, t])

  // Follow the conversation unless the reader scrolled up to read earlier messages.
  useLayoutEffect(() => {
    const element = scroller.current
    if (element && stick.current) element.scrollTop = element.scrollHeight
  })
  const onScroll = () => {
    const element = scroller.current
    if (element) stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80
  }

  const model = models.find((m) => m.id === modelId)
  const cost = model?.diamondsPerMessage ?? 0
  const length = messageLength(text)
  const tooLong = length > CHAT_MESSAGE_MAX_LENGTH

  /** Runs one send or regeneration through the stream, keeping the page in step with the server. */
  const run = async (kind: 'send' | 'regenerate', message?: string) => {
    setBusy(true)
    setStreaming('')
    stick.current = true
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
          setMessages((list) => [...list.filter((m) => m.id !== reply.id), reply])
          setSession((current) => (current ? { ...current, context } : current))
          setPoints(balance)
          chatUpdated(sessionId, reply.content.slice(0, 200))
          return
        }
        case 'stopped': {
          finished = true
          const { reply } = event.data
          if (reply) setMessages((list) => [...list.filter((m) => m.id !== reply.id), reply])
          return
        }
        case 'error': {
          finished = true
          const { reply } = event.data
          if (reply) setMessages((list) => [...list.filter((m) => m.id !== reply.id), reply])
          setProblem({
            message:
              event.data.code === 'INSUFFICIENT_DIAMONDS'
                ? tCommon('apiErrors.INSUFFICIENT_DIAMONDS')
                : `${t('errors.messageFailed')}: ${tCommon(`apiErrors.${event.data.code === 'MODEL_ERROR' || event.data.code === 'SERVICE_UNAVAILABLE' ? event.data.code : 'unknown'}`)}`,
            details: [event.data.code, event.data.kind, event.data.message].filter(Boolean).join(' · '),
            retry: event.data.code !== 'INSUFFICIENT_DIAMONDS',
          })
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
      if (!controller.signal.aborted) {
        const refused = error instanceof ApiError && error.code >= 400 && error.code < 500
        setProblem({
          message: `${t(refused ? 'errors.sendFailed' : 'errors.messageFailed')}: ${apiErrorMessage(tCommon, error)}`,
          details:
            error instanceof Error ? `${(error as ApiError).error ?? error.name}: ${error.message}` : String(error),
          retry: !refused,
        })
      }
      // The server is the record: show what it stored, and give back any text it did not keep.
      try {
        const { page } = await reload()
        if (message && !page.items.some((m) => m.author === 'user' && m.content === message)) setText(message)
      } catch {
        if (message) setText(message)
      }
    } finally {
      abort.current = null
      setPendingUser(null)
      setStreaming(null)
      setBusy(false)
    }
  }

  const send = (event?: FormEvent) => {
    event?.preventDefault()
    const message = text.trim()
    if (!message || busy || tooLong) return
    setText('')
    setPendingUser(message)
    void run('send', message)
  }

  const stop = async () => {
    try {
      await stopReply(sessionId)
    } catch {
      abort.current?.abort()
    }
  }

  const swipe = async (message: ChatMessage, direction: -1 | 1) => {
    const next = message.swipeIndex + direction
    // Past the last alternative, a new one is written (for replies; greetings are a fixed set).
    if (next >= message.swipeCount) {
      if (message.modelId !== null) void run('regenerate')
      return
    }
    try {
      const { message: updated } = await selectSwipe(sessionId, message.id, next)
      setMessages((list) => list.map((m) => (m.id === updated.id ? updated : m)))
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  const edit = async (message: ChatMessage, content: string) => {
    if (messageLength(content) > CHAT_MESSAGE_MAX_LENGTH) {
      notify(t('tooLong', { max: CHAT_MESSAGE_MAX_LENGTH }), { type: 'error' })
      return
    }
    try {
      const { message: updated, removedMessageIds } = await updateMessage(sessionId, message.id, content)
      setMessages((list) =>
        list.filter((m) => !removedMessageIds.includes(m.id)).map((m) => (m.id === updated.id ? updated : m)),
      )
      // The conversation continues from the edited message.
      void run('regenerate')
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  const remove = async (message: ChatMessage) => {
    try {
      await deleteMessage(sessionId, message.id)
      setMessages((list) => list.filter((m) => m.id !== message.id))
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  const loadEarlier = async () => {
    if (nextBefore === null) return
    stick.current = false
    try {
      const page = await getMessages(sessionId, nextBefore)
      setMessages((list) => [...[...page.items].reverse(), ...list])
      setNextBefore(page.nextBefore)
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  const removeChat = async () => {
    if (!window.confirm(t('confirmDeleteChat'))) return
    try {
      await deleteSession(sessionId)
      chatDeleted(sessionId)
      notify(t('deleted'), { type: 'success' })
      navigate(localize('/characters'))
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  if (loadError) {
    return (
      <div className="mx-auto max-w-xl py-16 text-center" role="alert">
        <PageMeta title={t('metaTitle')} description={t('metaTitle')} />
        <meta name="robots" content="noindex" />
        <p className="text-lg text-red-300">{loadError}</p>
        <LocalizedLink to="/characters" className="button-secondary mt-6">
          {tCommon('nav.characters')}
        </LocalizedLink>
      </div>
    )
  }

  const lastReplyIndex = messages.findLastIndex((m) => m.author === 'assistant')
  const context = session?.context
  return (
    <div className="mx-auto flex h-[calc(100dvh-6.5rem)] max-w-4xl flex-col">
      <PageMeta title={session ? `${roleName} · ${t('metaTitle')}` : t('metaTitle')} description={t('metaTitle')} />
      <meta name="robots" content="noindex" />
      <header className="flex items-center gap-3 border-b border-zinc-800 pb-3">
        <img
          src={roleAvatar ?? '/default-avatar.svg'}
          alt=""
          width={44}
          height={44}
          className="size-11 rounded-full object-cover"
        />
        <div className="min-w-0 flex-1">
          <h1 className="truncate text-lg font-semibold text-zinc-50">{session ? roleName : t('loading')}</h1>
          <p className="flex items-center gap-1.5 text-xs text-zinc-400" data-testid="chat-status">
            <span aria-hidden="true" className={`size-2 rounded-full ${busy ? 'bg-amber-400' : 'bg-emerald-400'}`} />
            {busy ? t('status.typing') : t('status.online')}
          </p>
        </div>
        {context ? (
          <div className="hidden w-40 sm:block" title={context.trimmed ? t('context.trimmed') : undefined}>
            <label htmlFor="context-gauge" className="block text-xs text-zinc-400">
              {t('context.label')}
            </label>
            <progress
              id="context-gauge"
              className="context-gauge h-1.5 w-full"
              max={context.budgetTokens}
              value={Math.min(context.usedTokens, context.budgetTokens)}
            />
            <span className="block text-xs tabular-nums text-zinc-400">
              {t('context.value', { used: context.usedTokens, budget: context.budgetTokens })}
            </span>
          </div>
        ) : null}
        <button type="button" className="button-ghost" onClick={() => setMemoryOpen(true)} disabled={!session}>
          <Brain aria-hidden="true" className="size-4" />
          {t('memory.open')}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('deleteChat')}
          title={t('deleteChat')}
          onClick={removeChat}
        >
          <Trash2 aria-hidden="true" className="size-4" />
        </button>
      </header>

      <div
        ref={scroller}
        onScroll={onScroll}
        className="flex-1 overflow-y-auto py-4"
        aria-live="polite"
        aria-busy={busy}
      >
        {nextBefore !== null ? (
          <div className="mb-4 text-center">
            <button type="button" className="button-ghost" onClick={loadEarlier}>
              {t('loadEarlier')}
            </button>
          </div>
        ) : null}
        {session && messages.length === 0 && pendingUser === null ? (
          <p className="py-12 text-center text-zinc-400">{t('startChatting', { name: roleName })}</p>
        ) : null}
        <ol className="space-y-4">
          {messages.map((message, index) => (
            <MessageItem
              key={message.id}
              message={message}
              roleName={roleName}
              roleAvatar={roleAvatar}
              isLast={index === lastReplyIndex && index === messages.length - 1}
              busy={busy}
              onSwipe={(direction) => swipe(message, direction)}
              onRegenerate={() => run('regenerate')}
              onEdit={(content) => edit(message, content)}
              onDelete={() => remove(message)}
              onDiscard={() => remove(message)}
            />
          ))}
          {pendingUser !== null ? (
            <li className="flex flex-row-reverse gap-3 opacity-70">
              <div className="max-w-[85%] text-end">
                <span className="text-xs font-medium text-zinc-400">{t('me')}</span>
                <p className="mt-1 whitespace-pre-wrap rounded-2xl bg-violet-700 px-4 py-2 text-start text-white">
                  {pendingUser}
                </p>
              </div>
            </li>
          ) : null}
          {streaming !== null ? <StreamingItem text={streaming} roleName={roleName} roleAvatar={roleAvatar} /> : null}
        </ol>
      </div>

      <form onSubmit={send} className="border-t border-zinc-800 pt-3">
        <label htmlFor="chat-input" className="sr-only">
          {t('messageLabel')}
        </label>
        <textarea
          id="chat-input"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) send(event)
          }}
          rows={2}
          placeholder={t('placeholder')}
          aria-invalid={tooLong}
          aria-describedby={tooLong ? 'chat-too-long' : undefined}
          className="w-full resize-none rounded-xl border border-zinc-700 bg-zinc-900 p-3 text-zinc-100 placeholder:text-zinc-400 focus:border-violet-400 focus:outline-none"
        />
        {tooLong ? (
          <p id="chat-too-long" className="text-sm text-red-300" role="alert">
            {t('tooLong', { max: CHAT_MESSAGE_MAX_LENGTH })}
          </p>
        ) : null}
        <div className="mt-2 flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-2 text-sm text-zinc-300">
            {t('model')}
            <select
              value={modelId}
              onChange={(event) => setModelId(event.target.value)}
              className="rounded-lg border border-zinc-700 bg-zinc-900 px-2 py-1 text-zinc-100"
            >
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.premium ? `${m.name} · ${t('premium')}` : m.name}
                </option>
              ))}
            </select>
          </label>
          {length > CHAT_MESSAGE_MAX_LENGTH * 0.8 ? (
            <span className={`text-xs tabular-nums ${tooLong ? 'text-red-300' : 'text-zinc-400'}`}>
              {t('characters', { count: length, max: CHAT_MESSAGE_MAX_LENGTH })}
            </span>
          ) : null}
          <div className="ms-auto flex items-center gap-3">
            <span
              className="flex items-center gap-1 text-sm text-zinc-300"
              title={t('balance')}
              data-testid="chat-balance"
            >
              <Gem aria-hidden="true" className="size-4 text-violet-300" />
              <span className="sr-only">{t('balance')}</span>
              {points === null ? '…' : formatNumber(locale, points)}
            </span>
            <span className="text-xs text-zinc-400" title={t('cost.label')} data-testid="chat-cost">
              <span className="sr-only">{t('cost.label')}: </span>
              {cost === 0 ? t('cost.free') : t('cost.diamonds', { count: cost })}
            </span>
            {points !== null && cost > points ? (
              <LocalizedLink to="/subscribe" className="text-sm text-violet-300 underline">
                {t('getDiamonds')}
              </LocalizedLink>
            ) : null}
            {busy ? (
              <button type="button" className="button-secondary px-4 py-2" onClick={stop}>
                <Square aria-hidden="true" className="size-4" />
                {t('stop')}
              </button>
            ) : (
              <button type="submit" className="button-primary px-4 py-2" disabled={!text.trim() || tooLong || !session}>
                <Send aria-hidden="true" className="size-4 rtl:-scale-x-100" />
                {t('send')}
              </button>
            )}
          </div>
        </div>
      </form>

      {memoryOpen && session ? (
        <MemoryPanel
          sessionId={sessionId}
          memory={session.memory}
          onSaved={(memory) => setSession({ ...session, memory })}
          onClose={() => setMemoryOpen(false)}
        />
      ) : null}
      {problem ? (
        <ConnectionErrorDialog
          message={problem.message}
          details={problem.details}
          onClose={() => setProblem(null)}
          onRetry={
            problem.retry
              ? () => {
                  setProblem(null)
                  void run('regenerate')
                }
              : undefined
          }
        />
      ) : null}
    </div>
  )
}
