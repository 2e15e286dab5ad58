import { Search } from 'lucide-react'
import { type FormEvent, useRef, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { searchChats } from '#app/features/chat/tidy-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ChatSearchHit, ChatSearchResult } from '#contracts/chat-tidy.ts'
import { imageVariantUrl } from '#contracts/images.ts'
import type { Locale } from '#contracts/locales.ts'

/** Search over every message of one's chats (ADR 048); each result opens its chat at the message. */
export function ChatSearch({ locale }: { locale: Locale }) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [q, setQ] = useState('')
  const [state, setState] = useState<
    | { kind: 'idle' }
    | { kind: 'searching' }
    | { kind: 'done'; q: string; result: ChatSearchResult }
    | { kind: 'failed'; message: string }
  >({ kind: 'idle' })
  const running = useRef<AbortController | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const query = q.trim()
    if (!query) return
    running.current?.abort()
    const controller = new AbortController()
    running.current = controller
    setState({ kind: 'searching' })
    try {
      const result = await searchChats(query, locale, controller.signal)
      if (!controller.signal.aborted) setState({ kind: 'done', q: query, result })
    } catch (error) {
      if (!controller.signal.aborted) setState({ kind: 'failed', message: apiErrorMessage(tCommon, error) })
    }
  }

  return (
    <section aria-labelledby="chat-search-title" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-4">
      <h2 id="chat-search-title" className="text-lg font-semibold">
        {t('tidy.searchTitle')}
      </h2>
      <form onSubmit={submit} className="mt-3 flex gap-2">
        <label htmlFor="chat-search" className="sr-only">
          {t('tidy.searchTitle')}
        </label>
        <input
          id="chat-search"
          type="search"
          dir="auto"
          value={q}
          onChange={(event) => setQ(event.target.value)}
          placeholder={t('tidy.searchPlaceholder')}
          maxLength={200}
          className="min-w-0 flex-1 rounded-xl border border-zinc-700 bg-zinc-950 px-3 py-2 text-zinc-100"
          data-testid="chat-search-input"
        />
        <button type="submit" className="button-primary" disabled={state.kind === 'searching'}>
          <Search aria-hidden="true" className="size-4" />
          {t('tidy.search')}
        </button>
      </form>
      <div aria-live="polite" className="mt-3">
        {state.kind === 'searching' ? <p className="text-sm text-zinc-400">{t('tidy.searching')}</p> : null}
        {state.kind === 'failed' ? <p className="text-sm text-red-300">{state.message}</p> : null}
        {state.kind === 'done' && state.result.total === 0 ? (
          <p className="text-sm text-zinc-400">{t('tidy.noResults', { q: state.q })}</p>
        ) : null}
        {state.kind === 'done' && state.result.total > 0 ? (
          <>
            <p className="text-sm text-zinc-400">{t('tidy.found', { total: state.result.total })}</p>
            <ul className="mt-2 space-y-2" data-testid="chat-search-results">
              {state.result.hits.map((hit) => (
                <SearchHit key={hit.messageId} hit={hit} locale={locale} />
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </section>
  )
}

function SearchHit({ hit, locale }: { hit: ChatSearchHit; locale: Locale }) {
  const { t } = useTranslation('chat')
  const name = hit.title ?? hit.role?.name ?? t('unknownRole')
  return (
    <li>
      <LocalizedLink
        to={`/chat/${hit.sessionId}?message=${hit.messageId}`}
        className="flex gap-3 rounded-xl p-2 hover:bg-zinc-800"
      >
        <img
          src={imageVariantUrl(hit.role?.avatar ?? null, 'square-128') ?? '/default-avatar.svg'}
          alt=""
          width={36}
          height={36}
          loading="lazy"
          className="size-9 shrink-0 rounded-full object-cover"
        />
        <span className="min-w-0 flex-1">
          <span className="flex flex-wrap items-baseline justify-between gap-x-3">
            <span dir="auto" className="truncate font-medium text-zinc-100">
              {name}
            </span>
            <time dateTime={hit.createdAt} className="text-xs text-zinc-400">
              {formatDateTime(locale, hit.createdAt)}
            </time>
          </span>
          <span className="block text-sm text-zinc-300">
            <span className="text-zinc-400">{hit.author === 'user' ? t('tidy.you') : (hit.role?.name ?? name)}: </span>
            <Highlighted text={hit.snippet} ranges={hit.highlights} />
          </span>
        </span>
      </LocalizedLink>
    </li>
  )
}

/** The snippet with the words searched for marked. */
function Highlighted({ text, ranges }: { text: string; ranges: [number, number][] }) {
  const parts: { text: string; mark: boolean; at: number }[] = []
  let at = 0
  for (const [start, end] of ranges) {
    if (start < at) continue
    if (start > at) parts.push({ text: text.slice(at, start), mark: false, at })
    parts.push({ text: text.slice(start, end), mark: true, at: start })
    at = end
  }
  if (at < text.length) parts.push({ text: text.slice(at), mark: false, at })
  return (
    <bdi>
      {parts.map((part) =>
        part.mark ? (
          <mark key={part.at} className="rounded bg-violet-400/30 text-zinc-50">
            {part.text}
          </mark>
        ) : (
          <span key={part.at}>{part.text}</span>
        ),
      )}
    </bdi>
  )
}
