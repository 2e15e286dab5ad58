import { Gem, PenLine, Send, Square } from 'lucide-react'
import type { FormEvent } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { CHAT_MESSAGE_MAX_LENGTH, messageLength, type PublicModel } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

type Props = {
  locale: Locale
  /** The text box's content; the page clears it on send and gives back what the server did not keep. */
  text: string
  onTextChange: (text: string) => void
  models: PublicModel[]
  modelId: string
  onModelChange: (modelId: string) => void
  /** The diamond balance, null until known. */
  points: number | null
  busy: boolean
  /** The chat has loaded: sending is possible. */
  ready: boolean
  onSend: (message: string) => void
  onStop: () => void
  /** "Write my reply" (ADR 053): the model drafts the user's next message into the text box. */
  onImpersonate?: (() => void) | undefined
  /** ↑ in an empty text box: edit the user's last message. */
  onEditLast?: (() => void) | undefined
}

/** The message box with its length check, the model, the balance, what a reply costs, and Send or Stop. */
export function Composer({
  locale,
  text,
  onTextChange,
  models,
  modelId,
  onModelChange,
  points,
  busy,
  ready,
  onSend,
  onStop,
  onImpersonate,
  onEditLast,
}: Props) {
  const { t } = useTranslation('chat')
  const cost = models.find((m) => m.id === modelId)?.diamondsPerMessage ?? 0
  const length = messageLength(text)
  const tooLong = length > CHAT_MESSAGE_MAX_LENGTH

  const send = (event?: FormEvent) => {
    event?.preventDefault()
    const message = text.trim()
    // Enter obeys what the Send button shows: nothing goes out before the chat has loaded.
    if (!message || busy || tooLong || !ready) return
    onSend(message)
  }

  return (
    <form onSubmit={send} className="border-t border-zinc-800 pt-3">
      <label htmlFor="chat-input" className="sr-only">
        {t('messageLabel')}
      </label>
      <textarea
        id="chat-input"
        value={text}
        onChange={(event) => onTextChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) send(event)
          const plain = !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey
          if (event.key === 'ArrowUp' && plain && text === '' && onEditLast && !busy) {
            event.preventDefault()
            onEditLast()
          }
        }}
        rows={2}
        placeholder={t('placeholder')}
        aria-invalid={tooLong}
        aria-describedby={tooLong ? 'chat-too-long chat-keys' : 'chat-keys'}
        className="w-full resize-none rounded-xl border border-zinc-700 bg-zinc-900 p-3 text-zinc-100 placeholder:text-zinc-400 focus:border-violet-400 focus:outline-none"
      />
      <p id="chat-keys" className="text-xs text-zinc-400" data-testid="chat-keys">
        {t('small.keyboardHint')}
      </p>
      {tooLong ? (
        <p id="chat-too-long" className="text-sm text-red-300" role="alert">
          {t('tooLong', { count: CHAT_MESSAGE_MAX_LENGTH })}
        </p>
      ) : null}
      <div className="mt-2 flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-2 text-sm text-zinc-300">
          {t('model')}
          <select
            value={modelId}
            onChange={(event) => onModelChange(event.target.value)}
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
          {onImpersonate && !busy ? (
            <button
              type="button"
              className="button-ghost px-3 py-2 text-sm"
              onClick={onImpersonate}
              disabled={!ready}
              title={`${t('small.writeMyReplyHint')} (${cost === 0 ? t('cost.free') : t('cost.diamonds', { count: cost })})`}
              data-testid="write-my-reply"
            >
              <PenLine aria-hidden="true" className="size-4" />
              {t('small.writeMyReply')}
            </button>
          ) : null}
          {busy ? (
            <button type="button" className="button-secondary px-4 py-2" onClick={onStop}>
              <Square aria-hidden="true" className="size-4" />
              {t('stop')}
            </button>
          ) : (
            <button type="submit" className="button-primary px-4 py-2" disabled={!text.trim() || tooLong || !ready}>
              <Send aria-hidden="true" className="size-4 rtl:-scale-x-100" />
              {t('send')}
            </button>
          )}
        </div>
      </div>
    </form>
  )
}
