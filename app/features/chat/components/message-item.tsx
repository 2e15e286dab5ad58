import { ChevronLeft, ChevronRight, FastForward, Pencil, RotateCw, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { renderMarkdown } from '#app/lib/markdown.ts'
import type { ChatMessage } from '#contracts/chat.ts'
import { ThinkingPart } from './thinking-part.tsx'

type Props = {
  message: ChatMessage
  roleName: string
  roleAvatar: string | null
  /** The newest reply (or the greeting before any message): swipes and regenerate apply. */
  isLast: boolean
  busy: boolean
  /** The model's thinking behind this reply (while it is continued, or kept from this page view). */
  thinking?: { text: string; active: boolean } | null
  /** Text being streamed onto the end of this reply (Continue), null otherwise. */
  appended?: string | null
  /** A user message the conversation ends with, left without a reply: it offers Retry. */
  stranded?: boolean
  onSwipe: (direction: -1 | 1) => void
  onRegenerate: () => void
  onContinue: () => void
  onRetry: () => void
  onEdit: (content: string) => void
  onDelete: () => void
  onDiscard: () => void
}

export function MessageItem(props: Props) {
  const { message, roleName, roleAvatar, isLast, busy, thinking, appended } = props
  const { t } = useTranslation('chat')
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(message.content)
  const mine = message.author === 'user'
  const continuing = appended !== null && appended !== undefined
  const content = continuing ? message.content + appended : message.content
  return (
    <li className={`flex gap-3 ${mine ? 'flex-row-reverse' : ''}`} data-testid={`message-${message.author}`}>
      {mine ? null : (
        <img
          src={roleAvatar ?? '/default-avatar.svg'}
          alt=""
          width={36}
          height={36}
          className="size-9 shrink-0 rounded-full object-cover"
        />
      )}
      <div className={`min-w-0 max-w-[85%] ${mine ? 'items-end text-end' : ''} flex flex-col`}>
        <span className="text-xs font-medium text-zinc-400">{mine ? t('me') : roleName}</span>
        {thinking ? <ThinkingPart text={thinking.text} active={thinking.active} /> : null}
        {editing ? (
          <form
            className="mt-1 w-[min(40rem,80vw)] space-y-2 text-start"
            onSubmit={(event) => {
              event.preventDefault()
              setEditing(false)
              props.onEdit(draft)
            }}
          >
            <label className="sr-only" htmlFor={`edit-${message.id}`}>
              {t('editLabel')}
            </label>
            <textarea
              id={`edit-${message.id}`}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              rows={4}
              className="w-full rounded-xl border border-zinc-700 bg-zinc-900 p-3 text-zinc-100"
            />
            <p className="text-xs text-zinc-400">{t('editNote')}</p>
            <div className="flex justify-end gap-2">
              <button type="button" className="button-ghost" onClick={() => setEditing(false)}>
                {t('cancel')}
              </button>
              <button type="submit" className="button-primary px-4 py-2 text-sm" disabled={!draft.trim()}>
                {t('save')}
              </button>
            </div>
          </form>
        ) : (
          <div
            className={`mt-1 rounded-2xl px-4 py-2 text-start ${
              mine ? 'bg-violet-700 text-white' : 'bg-zinc-800 text-zinc-100'
            }`}
          >
            {mine ? (
              <p dir="auto" className="whitespace-pre-wrap break-words">
                {message.content}
              </p>
            ) : (
              <div
                dir="auto"
                className="chat-markdown break-words"
                // Rendered by markdown-it with raw HTML escaped (app/lib/markdown.ts).
                // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized markdown
                dangerouslySetInnerHTML={{ __html: renderMarkdown(content) }}
              />
            )}
          </div>
        )}
        {message.status === 'interrupted' ? (
          <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-amber-300">
            <span>{t('interrupted')}</span>
            <button type="button" className="button-ghost text-xs" onClick={props.onDiscard} disabled={busy}>
              {t('discardPartial')}
            </button>
          </div>
        ) : null}
        {message.status === 'cut' && !continuing ? (
          <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-400" data-testid="reply-cut">
            <span>{t('cut')}</span>
            {isLast && message.modelId !== null ? (
              <button type="button" className="button-ghost text-xs" onClick={props.onContinue} disabled={busy}>
                <FastForward aria-hidden="true" className="size-3.5 rtl:-scale-x-100" />
                {t('continue')}
              </button>
            ) : null}
          </div>
        ) : null}
        {props.stranded && !editing ? (
          <div
            className="mt-1 flex flex-wrap items-center justify-end gap-2 text-xs text-amber-300"
            data-testid="stranded"
          >
            <span>{t('stranded')}</span>
            <button type="button" className="button-ghost text-xs" onClick={props.onRetry} disabled={busy}>
              <RotateCw aria-hidden="true" className="size-3.5" />
              {t('retry')}
            </button>
          </div>
        ) : null}
        {editing ? null : (
          <div className={`mt-1 flex items-center gap-1 text-zinc-400 ${mine ? 'justify-end' : ''}`}>
            {!mine && isLast && message.swipeCount > 0 ? (
              <>
                <button
                  type="button"
                  className="icon-button size-8"
                  aria-label={t('previousSwipe')}
                  disabled={busy || message.swipeIndex === 0}
                  onClick={() => props.onSwipe(-1)}
                >
                  <ChevronLeft aria-hidden="true" className="size-4 rtl:rotate-180" />
                </button>
                <span className="text-xs tabular-nums" data-testid="swipe-position">
                  {t('swipePosition', { current: message.swipeIndex + 1, total: message.swipeCount })}
                </span>
                <button
                  type="button"
                  className="icon-button size-8"
                  aria-label={t('nextSwipe')}
                  disabled={busy}
                  onClick={() => props.onSwipe(1)}
                >
                  <ChevronRight aria-hidden="true" className="size-4 rtl:rotate-180" />
                </button>
              </>
            ) : null}
            {!mine && isLast && message.modelId !== null ? (
              <button
                type="button"
                className="icon-button size-8"
                aria-label={t('regenerate')}
                title={t('regenerate')}
                disabled={busy}
                onClick={props.onRegenerate}
              >
                <RotateCw aria-hidden="true" className="size-4" />
              </button>
            ) : null}
            {mine ? (
              <>
                <button
                  type="button"
                  className="icon-button size-8"
                  aria-label={t('edit')}
                  title={t('edit')}
                  disabled={busy}
                  onClick={() => {
                    setDraft(message.content)
                    setEditing(true)
                  }}
                >
                  <Pencil aria-hidden="true" className="size-4" />
                </button>
                <button
                  type="button"
                  className="icon-button size-8"
                  aria-label={t('delete')}
                  title={t('delete')}
                  disabled={busy}
                  onClick={props.onDelete}
                >
                  <Trash2 aria-hidden="true" className="size-4" />
                </button>
              </>
            ) : null}
          </div>
        )}
      </div>
    </li>
  )
}

/** The reply being written, shown as it streams in. */
export function StreamingItem({
  text,
  reasoning,
  roleName,
  roleAvatar,
}: {
  text: string
  /** The model's thinking so far, null when it sent none. */
  reasoning: string | null
  roleName: string
  roleAvatar: string | null
}) {
  return (
    <li className="flex gap-3" data-testid="message-streaming">
      <img
        src={roleAvatar ?? '/default-avatar.svg'}
        alt=""
        width={36}
        height={36}
        className="size-9 shrink-0 rounded-full object-cover"
      />
      <div className="min-w-0 max-w-[85%]">
        <span className="text-xs font-medium text-zinc-400">{roleName}</span>
        {reasoning !== null ? <ThinkingPart text={reasoning} active={text === ''} /> : null}
        <div className="mt-1 rounded-2xl bg-zinc-800 px-4 py-2 text-zinc-100">
          {text ? (
            <div
              dir="auto"
              className="chat-markdown break-words"
              // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized markdown
              dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
            />
          ) : (
            <span className="inline-flex gap-1" aria-hidden="true">
              <span className="size-2 animate-bounce rounded-full bg-zinc-400" />
              <span className="size-2 animate-bounce rounded-full bg-zinc-400 [animation-delay:150ms]" />
              <span className="size-2 animate-bounce rounded-full bg-zinc-400 [animation-delay:300ms]" />
            </span>
          )}
        </div>
      </div>
    </li>
  )
}
