import type { RefObject } from 'react'
import { thoughtKey } from '#app/features/chat/hooks/use-streaming-reply.ts'
import { strandedMessageId } from '#app/features/chat/reply-problems.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ChatMessage, PublicModel } from '#contracts/chat.ts'
import type { SceneMember } from '#contracts/chat-scenes.ts'
import { MessageItem, StreamingItem } from './message-item.tsx'

type Props = {
  scroller: RefObject<HTMLDivElement | null>
  onScroll: () => void
  /** The chat has loaded (before that, no "start chatting" line). */
  loaded: boolean
  messages: ChatMessage[]
  roleName: string
  roleAvatar: string | null
  busy: boolean
  hasEarlier: boolean
  pendingUser: string | null
  streaming: string | null
  /** The model's thinking as the reply streams, null when it sent none. */
  reasoning: string | null
  /** The reply being continued: `streaming` is appended to it instead of shown as a new reply. */
  continuingId: number | null
  /** Thinking kept for replies written in this page view (thoughtKey). */
  thoughts: ReadonlyMap<string, string>
  onLoadEarlier: () => void
  onSwipe: (message: ChatMessage, direction: -1 | 1) => void
  onRegenerate: () => void
  onContinue: (message: ChatMessage) => void
  /** Asks for the reply a stranded user message never got. */
  onRetry: () => void
  onEdit: (message: ChatMessage, content: string) => void
  onDelete: (message: ChatMessage) => void
  /** "Branch from here" on a message (ADR 050); left out: no branching. */
  onBranch?: ((message: ChatMessage) => void) | undefined
  /** The models the chat may use: who wrote a reply, and "Regenerate with…" (ADR 053). */
  models?: PublicModel[] | undefined
  onRegenerateWith?: ((modelId: string) => void) | undefined
  /** ↑ in the composer: edit this message (id), with a counter so the same message can be asked twice. */
  editRequest?: { id: number; nonce: number } | null | undefined
  /** A scene's members (ADR 052): each reply shows its speaker's name and avatar. */
  members?: readonly SceneMember[] | undefined
  /** The member writing the reply being streamed, when the server named one. */
  streamingSpeaker?: { id: string; name: string } | null | undefined
}

/** The conversation: earlier pages on demand, the messages, the one being sent and the reply streaming in. */
export function MessageList(props: Props) {
  const { messages, roleName, roleAvatar, busy, pendingUser, streaming, reasoning, continuingId, thoughts } = props
  const { t } = useTranslation('chat')
  // A scene's reply is its speaker's: their name, and their avatar while they are a member.
  const avatarOf = (speaker: { id: string } | null | undefined) =>
    speaker ? (props.members?.find((m) => m.id === speaker.id)?.avatar ?? null) : roleAvatar
  const lastReplyIndex = messages.findLastIndex((m) => m.author === 'assistant')
  // While a reply is on its way the last message is not stranded: its answer is coming.
  const stranded = busy || pendingUser !== null ? null : strandedMessageId(messages)
  // Before the user's first message the greeting's alternates are offered to choose from (ADR 050).
  const choosingGreeting =
    messages.length === 1 && !props.hasEarlier && pendingUser === null && (messages[0]?.swipeCount ?? 0) > 1
  const thinkingOf = (message: ChatMessage) => {
    if (message.id === continuingId && reasoning !== null) return { text: reasoning, active: !streaming }
    const kept = thoughts.get(thoughtKey(message))
    return kept ? { text: kept, active: false } : null
  }
  return (
    <div
      ref={props.scroller}
      onScroll={props.onScroll}
      className="flex-1 overflow-y-auto py-4"
      aria-live="polite"
      aria-busy={busy}
    >
      {props.hasEarlier ? (
        <div className="mb-4 text-center">
          <button type="button" className="button-ghost" onClick={props.onLoadEarlier}>
            {t('loadEarlier')}
          </button>
        </div>
      ) : null}
      {props.loaded && messages.length === 0 && pendingUser === null ? (
        <p className="py-12 text-center text-zinc-400">{t('startChatting', { name: roleName })}</p>
      ) : null}
      <ol className="space-y-4">
        {messages.map((message, index) => (
          <MessageItem
            key={message.id}
            message={message}
            roleName={message.speaker?.name ?? roleName}
            roleAvatar={avatarOf(message.speaker)}
            isLast={index === lastReplyIndex && index === messages.length - 1}
            busy={busy}
            thinking={message.author === 'assistant' ? thinkingOf(message) : null}
            appended={message.id === continuingId ? streaming : null}
            stranded={message.id === stranded}
            onSwipe={(direction) => props.onSwipe(message, direction)}
            onRegenerate={props.onRegenerate}
            onContinue={() => props.onContinue(message)}
            onRetry={props.onRetry}
            onEdit={(content) => props.onEdit(message, content)}
            onDelete={() => props.onDelete(message)}
            onDiscard={() => props.onDelete(message)}
            onBranch={props.onBranch ? () => props.onBranch?.(message) : undefined}
            choosingGreeting={choosingGreeting && index === 0}
            modelName={props.models?.find((m) => m.id === message.modelId)?.name ?? null}
            regenerateWith={
              props.models && props.onRegenerateWith
                ? { models: props.models, onPick: props.onRegenerateWith }
                : undefined
            }
            editRequest={props.editRequest?.id === message.id ? props.editRequest.nonce : undefined}
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
        {streaming !== null && continuingId === null ? (
          <StreamingItem
            text={streaming}
            reasoning={reasoning}
            roleName={props.streamingSpeaker?.name ?? roleName}
            roleAvatar={avatarOf(props.streamingSpeaker)}
          />
        ) : null}
      </ol>
    </div>
  )
}
