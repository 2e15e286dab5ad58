import { MessageCirclePlus, Pencil, Pin, PinOff, Trash2 } from 'lucide-react'
import { type FormEvent, useId, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { deleteChatWithUndo } from '#app/features/chat/delete-with-undo.ts'
import { type ChatSummary, chatTidied } from '#app/features/chat/my-chats.ts'
import { pinSession, renameSession } from '#app/features/chat/tidy-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { previewText } from '#app/lib/plain-text.ts'
import { CHAT_TITLE_MAX_LENGTH } from '#contracts/chat-tidy.ts'
import { imageVariantUrl } from '#contracts/images.ts'
import type { Locale } from '#contracts/locales.ts'

/**
 * One chat on the My Chats page: continue it, start a new chat with its character, rename, pin,
 * delete (with undo).
 */
export function ChatRow({ session, locale }: { session: ChatSummary; locale: Locale }) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [renaming, setRenaming] = useState(false)
  const [busy, setBusy] = useState(false)
  const name = session.title ?? session.role?.name ?? t('unknownRole')

  const run = async (action: () => Promise<void>) => {
    setBusy(true)
    try {
      await action()
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }
  const togglePin = () =>
    run(async () => {
      const changed = await pinSession(session.id, !session.pinned)
      chatTidied(session.id, changed)
    })

  return (
    <li className="rounded-2xl border border-zinc-800 bg-zinc-900 p-3" data-testid="chat-row">
      <div className="flex items-start gap-3">
        <img
          src={imageVariantUrl(session.role?.avatar ?? null, 'square-128') ?? '/default-avatar.svg'}
          alt=""
          width={44}
          height={44}
          loading="lazy"
          className="size-11 shrink-0 rounded-full object-cover"
        />
        <div className="min-w-0 flex-1">
          {renaming ? (
            <RenameForm
              session={session}
              onDone={() => setRenaming(false)}
              onSave={(title) =>
                run(async () => {
                  const changed = await renameSession(session.id, title)
                  chatTidied(session.id, changed)
                  setRenaming(false)
                  notify(t('tidy.renamed'), { type: 'success' })
                })
              }
            />
          ) : (
            <p className="flex items-center gap-2">
              {session.pinned ? (
                <Pin aria-label={t('tidy.pinned')} className="size-4 shrink-0 text-violet-300" data-testid="pinned" />
              ) : null}
              <span dir="auto" className="truncate font-semibold text-zinc-50" data-testid="chat-row-name">
                {name}
              </span>
            </p>
          )}
          {session.members ? (
            // A scene (ADR 052): its members, in the page's language's way of listing.
            <p dir="auto" className="truncate text-xs text-zinc-400" data-testid="chat-row-members">
              {new Intl.ListFormat(locale, { type: 'conjunction', style: 'narrow' }).format(session.members)}
            </p>
          ) : session.title && session.role ? (
            <p dir="auto" className="truncate text-xs text-zinc-400">
              {session.role.name}
            </p>
          ) : null}
          {session.lastMessage ? (
            <p dir="auto" className="mt-1 line-clamp-2 text-sm text-zinc-300">
              {previewText(session.lastMessage)}
            </p>
          ) : null}
          <time dateTime={session.updatedAt} className="mt-1 block text-xs text-zinc-400">
            {formatDate(locale, session.updatedAt, 'medium')}
          </time>
        </div>
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <LocalizedLink to={`/chat/${session.id}`} className="button-primary" data-testid="chat-continue">
          {t('tidy.continue')}
        </LocalizedLink>
        {session.role ? (
          <LocalizedLink
            to={`/chat/new?roleId=${encodeURIComponent(session.role.id)}`}
            className="button-secondary"
            data-testid="chat-new"
          >
            <MessageCirclePlus aria-hidden="true" className="size-4" />
            {t('tidy.newChat')}
          </LocalizedLink>
        ) : null}
        <button type="button" className="button-ghost" disabled={busy} onClick={() => setRenaming(true)}>
          <Pencil aria-hidden="true" className="size-4" />
          {t('tidy.rename')}
        </button>
        <button
          type="button"
          className="button-ghost"
          disabled={busy}
          onClick={togglePin}
          aria-pressed={session.pinned}
        >
          {session.pinned ? (
            <PinOff aria-hidden="true" className="size-4" />
          ) : (
            <Pin aria-hidden="true" className="size-4" />
          )}
          {session.pinned ? t('tidy.unpin') : t('tidy.pin')}
        </button>
        <button
          type="button"
          className="button-ghost"
          disabled={busy}
          onClick={() => void deleteChatWithUndo(session.id, t, tCommon)}
        >
          <Trash2 aria-hidden="true" className="size-4" />
          {t('deleteChat')}
        </button>
      </div>
    </li>
  )
}

function RenameForm({
  session,
  onSave,
  onDone,
}: {
  session: ChatSummary
  onSave: (title: string) => void
  onDone: () => void
}) {
  const { t } = useTranslation('chat')
  const id = useId()
  const [title, setTitle] = useState(session.title ?? session.role?.name ?? '')
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onSave(title)
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-center gap-2">
      <label htmlFor={id} className="sr-only">
        {t('tidy.titleLabel')}
      </label>
      <input
        id={id}
        dir="auto"
        value={title}
        maxLength={CHAT_TITLE_MAX_LENGTH}
        onChange={(event) => setTitle(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone()
        }}
        aria-describedby={`${id}-hint`}
        className="min-w-0 flex-1 rounded-lg border border-zinc-700 bg-zinc-950 px-2 py-1 text-zinc-100"
        data-testid="chat-title-input"
      />
      <button type="submit" className="button-secondary">
        {t('tidy.save')}
      </button>
      <button type="button" className="button-ghost" onClick={onDone}>
        {t('tidy.cancel')}
      </button>
      <p id={`${id}-hint`} className="w-full text-xs text-zinc-400">
        {t('tidy.titleHint')}
      </p>
    </form>
  )
}
