import { ServerOff } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { deleteSession, getSession } from '#app/features/chat/api.ts'
import { ChatHeader } from '#app/features/chat/components/chat-header.tsx'
import { ChatSettingsDialog } from '#app/features/chat/components/chat-settings-dialog.tsx'
import { Composer } from '#app/features/chat/components/composer.tsx'
import { ConnectionErrorDialog } from '#app/features/chat/components/connection-error-dialog.tsx'
import { MemoryPanel } from '#app/features/chat/components/memory-panel.tsx'
import { MessageList } from '#app/features/chat/components/message-list.tsx'
import { ModelPreparingNotice } from '#app/features/chat/components/model-preparing-notice.tsx'
import { useChatSession } from '#app/features/chat/hooks/use-chat-session.ts'
import { useFollowScroll } from '#app/features/chat/hooks/use-follow-scroll.ts'
import { useMessageActions } from '#app/features/chat/hooks/use-message-actions.ts'
import { useStreamingReply } from '#app/features/chat/hooks/use-streaming-reply.ts'
import { chatDeleted } from '#app/features/chat/my-chats.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { notify } from '#app/lib/notify.tsx'
import { usePoints } from '#app/lib/points.ts'
import { routeLocale } from '#app/lib/route-locale.ts'

export const handle = { i18n: ['chat'] }

/**
 * `/chat/:id`: one conversation, loaded in the browser (it is private to its user). The page
 * composes the chat feature: the session and its messages (useChatSession), the reply stream
 * (useStreamingReply), what can be done to a message (useMessageActions), and their views.
 */
export default function Chat() {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const params = useParams()
  const sessionId = params.id ?? ''
  const locale = routeLocale(params)
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const { points } = usePoints()
  const [text, setText] = useState('')
  const [memoryOpen, setMemoryOpen] = useState(false)
  const [settingsOpen, setSettingsOpen] = useState(false)

  const chat = useChatSession(sessionId)
  const { session, messages } = chat
  const scroll = useFollowScroll(sessionId)
  const reply = useStreamingReply({
    sessionId,
    locale,
    modelId: chat.modelId,
    setMessages: chat.setMessages,
    setSession: chat.setSession,
    reload: chat.reload,
    giveBack: setText,
    onStart: scroll.follow,
    onFailure: () => void chat.checkReachable(),
  })
  const actions = useMessageActions({ sessionId, setMessages: chat.setMessages, regenerate: reply.regenerate })

  const model = chat.models.find((m) => m.id === chat.modelId)
  const roleName = session?.role?.name ?? t('unknownRole')
  const roleAvatar = session?.role?.avatar ?? null

  const loadEarlier = async () => {
    scroll.stay()
    try {
      await chat.loadEarlier()
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

  if (chat.loadFailure) {
    const message = apiErrorMessage(tCommon, chat.loadFailure.error, {
      own: { INVALID_SESSION: () => t('errors.invalidSession') },
      otherwise: t('errors.load'),
    })
    return (
      <div className="mx-auto max-w-xl py-16 text-center" role="alert">
        <PageMeta title={t('metaTitle')} description={t('metaTitle')} />
        <meta name="robots" content="noindex" />
        <p className="text-lg text-red-300">{message}</p>
        <LocalizedLink to="/characters" className="button-secondary mt-6">
          {tCommon('nav.characters')}
        </LocalizedLink>
      </div>
    )
  }

  return (
    <div className="mx-auto flex h-[calc(100dvh-6.5rem)] max-w-4xl flex-col">
      <PageMeta title={session ? `${roleName} · ${t('metaTitle')}` : t('metaTitle')} description={t('metaTitle')} />
      <meta name="robots" content="noindex" />
      <ChatHeader
        name={session ? roleName : null}
        avatar={roleAvatar}
        busy={reply.busy}
        context={session?.context}
        canOpenMemory={session !== null}
        onOpenMemory={() => setMemoryOpen(true)}
        onOpenSettings={() => setSettingsOpen(true)}
        onDelete={removeChat}
      />
      <MessageList
        scroller={scroll.scroller}
        onScroll={scroll.onScroll}
        loaded={session !== null}
        messages={messages}
        roleName={roleName}
        roleAvatar={roleAvatar}
        busy={reply.busy}
        hasEarlier={chat.nextBefore !== null}
        pendingUser={reply.pendingUser}
        streaming={reply.streaming}
        reasoning={reply.reasoning}
        continuingId={reply.continuingId}
        thoughts={reply.thoughts}
        onLoadEarlier={loadEarlier}
        onSwipe={actions.swipe}
        onRegenerate={reply.regenerate}
        onContinue={(message) => reply.continueReply(message.id)}
        onRetry={reply.regenerate}
        onEdit={actions.edit}
        onDelete={actions.remove}
      />
      {chat.chatProvider?.kind === 'embedded' ? (
        <ModelPreparingNotice locale={locale} provider={chat.chatProvider} />
      ) : chat.anyReachable ? null : (
        <p
          className="mx-2 mb-2 flex items-start gap-2 rounded-xl border border-amber-700/60 bg-amber-950/40 px-3 py-2 text-sm text-amber-200"
          data-testid="no-model-notice"
        >
          <ServerOff aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          {t('noModelReachable')}
        </p>
      )}
      <Composer
        locale={locale}
        text={text}
        onTextChange={setText}
        models={chat.models}
        modelId={chat.modelId}
        onModelChange={chat.setModelId}
        points={points}
        busy={reply.busy}
        ready={session !== null}
        onSend={(message) => {
          setText('')
          reply.send(message)
        }}
        onStop={reply.stop}
      />
      {memoryOpen && session ? (
        <MemoryPanel
          locale={locale}
          sessionId={sessionId}
          memory={session.memory}
          onSaved={(memory) => chat.setSession({ ...session, memory })}
          onClose={() => setMemoryOpen(false)}
        />
      ) : null}
      {settingsOpen && session && model ? (
        <ChatSettingsDialog
          locale={locale}
          sessionId={sessionId}
          model={model}
          settings={session.settings}
          onSaved={(settings) => {
            chat.setSession((s) => s && { ...s, settings })
            // The reply length changes the prompt's room: the context gauge is read again.
            getSession(sessionId, model.id).then(
              (detail) => chat.setSession(detail),
              () => {},
            )
          }}
          onClose={() => setSettingsOpen(false)}
        />
      ) : null}
      {reply.problem ? (
        <ConnectionErrorDialog
          message={reply.problem.message}
          details={reply.problem.details}
          onClose={reply.dismissProblem}
          onRetry={reply.problem.retry ? reply.retry : undefined}
        />
      ) : null}
    </div>
  )
}
