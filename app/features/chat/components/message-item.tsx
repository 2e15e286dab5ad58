import { ChevronLeft, ChevronRight, FastForward, GitBranch, Pencil, RotateCw, Trash2 } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { renderMarkdown } from '#app/lib/markdown.ts'
import type { ChatMessage, PublicModel } from '#contracts/chat.ts'
import { imageVariantUrl } from '#contracts/images.ts'
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
  /** "Branch from here" (ADR 050): a new chat with the history up to this message. */
  onBranch?: (() => void) | undefined
  /** The greeting before the user's first message, with alternates to choose among (ADR 050). */
  choosingGreeting?: boolean
  /** The name of the model that wrote the alternative shown (ADR 053), null: none or unknown. */
  modelName?: string | null
  /** "Regenerate with…" (ADR 053): the models the chat may use; picking one writes a new alternative with it. */
  regenerateWith?: { models: PublicModel[]; onPick: (modelId: string) => void } | undefined
  /** Changes when ↑ in the composer asks to edit this message (ADR 053). */
  editRequest?: number | undefined
}

export function MessageItem(props: Props) {
  const { message, roleName, roleAvatar, isLast, busy, thinking, appended } = props
  const { t } = useTranslation('chat')
  const [editing, setEditing] = useState(false)
  const [draft, setDraft] = useState(message.content)
  const { editRequest } = props
  // ↑ in an empty composer opens this message's edit (the same edit as its pencil button).
  useEffect(() => {
    if (!editRequest) return
    setDraft(message.content)
    setEditing(true)
  }, [editRequest, message.content])
  const mine = message.author === 'user'
  const continuing = appended !== null && appended !== undefined
  const content = continuing ? message.content + appended : message.content
  return (
    <li
      id={`message-${message.id}`}
      className={`flex gap-3 rounded-2xl data-[found]:ring-2 data-[found]:ring-violet-400 ${mine ? 'flex-row-reverse' : ''}`}
      data-testid={`message-${message.author}`}
    >
      {mine ? null : (
        <img
          src={imageVariantUrl(roleAvatar, 'square-128') ?? '/default-avatar.svg'}
          alt=""
          width={36}
          height={36}
          className="size-9 shrink-0 rounded-full object-cover"
        />
      )}
      <div className={`min-w-0 max-w-[85%] ${mine ? 'items-end text-end' : ''} flex flex-col`}>
        <span className="text-xs font-medium text-zinc-400" dir="auto" data-testid="message-author">
          {mine ? t('me') : roleName}
          {message.imported ? (
            <span className="ms-2 rounded bg-zinc-800 px-1.5 py-0.5 text-zinc-300" data-testid="imported-mark">
              {t('transfer.importedMark')}
            </span>
          ) : null}
        </span>
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
              // biome-ignore lint/a11y/noAutofocus: the user asked for this edit (its button or ↑); Escape cancels it
              autoFocus
              onKeyDown={(event) => {
                if (event.key !== 'Escape') return
                event.preventDefault()
                setEditing(false)
                document.getElementById('chat-input')?.focus()
              }}
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
        {!mine && props.modelName && !editing ? (
          <span className="mt-1 text-xs text-zinc-400" data-testid="written-by">
            {t('small.writtenBy', { model: props.modelName })}
          </span>
        ) : null}
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
        {props.choosingGreeting && !editing ? (
          <p className="mt-1 text-xs text-zinc-400" data-testid="greeting-choice">
            {t('greetingChoice.hint')}
          </p>
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
                  // Greetings are a fixed set: past the last there is nothing to write.
                  disabled={busy || (message.modelId === null && message.swipeIndex >= message.swipeCount - 1)}
                  onClick={() => props.onSwipe(1)}
                >
                  <ChevronRight aria-hidden="true" className="size-4 rtl:rotate-180" />
                </button>
              </>
            ) : null}
            {/* A greeting is not regenerated (no model wrote it); an imported reply may be (ADR 051). */}
            {!mine && isLast && (message.modelId !== null || message.imported) ? (
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
            {!mine && isLast && props.regenerateWith && message.modelId !== null ? (
              <select
                className="max-w-40 rounded-lg border border-zinc-700 bg-zinc-900 px-1 py-1 text-xs text-zinc-300"
                aria-label={t('small.regenerateWith')}
                value=""
                disabled={busy}
                onChange={(event) => {
                  if (event.target.value) props.regenerateWith?.onPick(event.target.value)
                }}
                data-testid="regenerate-with"
              >
                <option value="">{t('small.regenerateWith')}</option>
                {props.regenerateWith.models.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.premium ? `${m.name} · ${t('premium')}` : m.name}
                  </option>
                ))}
              </select>
            ) : null}
            {props.onBranch ? (
              <button
                type="button"
                className="icon-button size-8"
                aria-label={t('branches.branchHere')}
                title={t('branches.branchHere')}
                disabled={busy}
                onClick={props.onBranch}
                data-testid="branch-here"
              >
                <GitBranch aria-hidden="true" className="size-4" />
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
        src={imageVariantUrl(roleAvatar, 'square-128') ?? '/default-avatar.svg'}
        alt=""
        width={36}
        height={36}
        className="size-9 shrink-0 rounded-full object-cover"
      />
      <div className="min-w-0 max-w-[85%]">
        <span className="text-xs font-medium text-zinc-400" dir="auto" data-testid="message-author">
          {roleName}
        </span>
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
