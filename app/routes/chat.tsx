import { ServerOff } from 'lucide-react'
import { useCallback, useState } from 'react'
import { useNavigate, useParams, useSearchParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { chatOpeningRequests, getSession } from '#app/features/chat/api.ts'
import { BranchLinks } from '#app/features/chat/components/branch-links.tsx'
import { ChatExportMenu } from '#app/features/chat/components/chat-export-menu.tsx'
import { ChatHeader } from '#app/features/chat/components/chat-header.tsx'
import { ChatSettingsDialog } from '#app/features/chat/components/chat-settings-dialog.tsx'
import { Composer } from '#app/features/chat/components/composer.tsx'
import { ConnectionErrorDialog } from '#app/features/chat/components/connection-error-dialog.tsx'
import { MemoryPanel } from '#app/features/chat/components/memory-panel.tsx'
import { MessageList } from '#app/features/chat/components/message-list.tsx'
import { ModelPreparingNotice } from '#app/features/chat/components/model-preparing-notice.tsx'
import { SceneMembers } from '#app/features/chat/components/scene-members.tsx'
import { SceneSpeakers } from '#app/features/chat/components/scene-speakers.tsx'
import { deleteChatWithUndo } from '#app/features/chat/delete-with-undo.ts'
import { useBranches } from '#app/features/chat/hooks/use-branches.ts'
import { useChatSession } from '#app/features/chat/hooks/use-chat-session.ts'
import { useFollowScroll } from '#app/features/chat/hooks/use-follow-scroll.ts'
import { useImpersonate } from '#app/features/chat/hooks/use-impersonate.ts'
import { useJumpToMessage } from '#app/features/chat/hooks/use-jump-to-message.ts'
import { useMessageActions } from '#app/features/chat/hooks/use-message-actions.ts'
import { useScene } from '#app/features/chat/hooks/use-scene.ts'
import { useStreamingReply } from '#app/features/chat/hooks/use-streaming-reply.ts'
import { useSwipeKeys } from '#app/features/chat/hooks/use-swipe-keys.ts'
import { PersonaPicker } from '#app/features/personas/components/persona-picker.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { EarlyRequests } from '#app/lib/early-requests.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { usePoints } from '#app/lib/points.ts'
import { routeLocale } from '#app/lib/route-locale.ts'

export const handle = { i18n: ['chat', 'personas'] }

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

  const chat = useChatSession(sessionId, locale)
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
  const impersonate = useImpersonate({ sessionId, locale, modelId: chat.modelId, text, setText })
  const [editRequest, setEditRequest] = useState<{ id: number; nonce: number } | null>(null)
  const actions = useMessageActions({ sessionId, setMessages: chat.setMessages, regenerate: reply.regenerate })
  const branches = useBranches(sessionId)
  const scene = useScene(sessionId)
  // ←/→ switch the alternatives of the message the arrow buttons are on: the newest, a reply or the greeting.
  const lastMessage = messages.at(-1)
  useSwipeKeys(lastMessage?.author === 'assistant' ? lastMessage : null, reply.busy, actions.swipe)

  const model = chat.models.find((m) => m.id === chat.modelId)
  const roleName = session?.title ?? session?.role?.name ?? t('unknownRole')
  const roleAvatar = session?.role?.avatar ?? null

  const loadEarlier = async () => {
    scroll.stay()
    try {
      await chat.loadEarlier()
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  // Deleted at once with "Undo" for a few seconds (ADR 048); an undo brings the user back here.
  const removeChat = async () => {
    const back = localize(`/chat/${sessionId}`)
    if (await deleteChatWithUndo(sessionId, t, tCommon, () => navigate(back))) navigate(localize('/chats'))
  }

  // A search result links to its message (`?message=<id>`).
  const [search] = useSearchParams()
  const target = Number(search.get('message'))
  const messageMissing = useCallback(() => notify(t('tidy.messageGone'), { type: 'info' }), [t])
  useJumpToMessage({
    messageId: Number.isSafeInteger(target) && target > 0 ? target : null,
    loaded: session !== null,
    messages,
    hasEarlier: chat.nextBefore !== null,
    loadEarlier: chat.loadEarlier,
    onMissing: messageMissing,
  })

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
      {/* The session, its messages and the models are asked for before the page's scripts arrive. */}
      <EarlyRequests requests={chatOpeningRequests(sessionId, locale)} />
      <ChatHeader
        name={session ? roleName : null}
        avatar={roleAvatar}
        busy={reply.busy}
        context={session?.context}
        canOpenMemory={session !== null}
        onOpenMemory={() => setMemoryOpen(true)}
        onOpenSettings={() => setSettingsOpen(true)}
        onDelete={removeChat}
        persona={session ? <PersonaPicker sessionId={sessionId} disabled={reply.busy} /> : null}
        exportMenu={<ChatExportMenu sessionId={sessionId} disabled={session === null} />}
      />
      {scene.scene && session ? (
        <SceneMembers scene={scene.scene} locale={locale} busy={reply.busy} onAdd={scene.add} onRemove={scene.remove} />
      ) : null}
      <BranchLinks links={branches.links} locale={locale} />
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
        onBranch={branches.branch}
        models={chat.models}
        onRegenerateWith={(id) => {
          // The choice is the chat's model from now on, as the composer's is (ADR 053).
          chat.setModelId(id)
          reply.regenerateWith(id)
        }}
        editRequest={editRequest}
        members={scene.scene?.members}
        streamingSpeaker={reply.speaker}
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
      {scene.scene ? (
        <SceneSpeakers
          scene={scene.scene}
          busy={reply.busy}
          onMode={(mode) => void scene.setMode(mode)}
          onSpeak={reply.speak}
        />
      ) : null}
      <Composer
        locale={locale}
        text={text}
        onTextChange={setText}
        models={chat.models}
        modelId={chat.modelId}
        onModelChange={chat.setModelId}
        points={points}
        busy={reply.busy || impersonate.busy}
        ready={session !== null}
        onSend={(message) => {
          setText('')
          reply.send(message)
        }}
        onStop={impersonate.busy ? impersonate.stop : reply.stop}
        onImpersonate={impersonate.start}
        onEditLast={() => {
          const mine = messages.findLast((m) => m.author === 'user')
          if (mine) setEditRequest((r) => ({ id: mine.id, nonce: (r?.nonce ?? 0) + 1 }))
        }}
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
          authorNote={session.authorNote}
          onSaved={(settings, authorNote) => {
            chat.setSession((s) => s && { ...s, settings, authorNote })
            // The reply length changes the prompt's room: the context gauge is read again.
            getSession(sessionId, locale, model.id).then(
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
