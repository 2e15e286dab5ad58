import { useEffect, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { characterSessions } from '#app/features/chat/tidy-api.ts'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { previewText } from '#app/lib/plain-text.ts'
import { useIsLoggedIn } from '#app/lib/session.ts'
import type { ChatSessionSummary } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

/**
 * The signed-in user's chats with a character, most recently active first (ADR 048); empty until
 * loaded in the browser (the server renders without the user's session) and for visitors.
 */
export function useCharacterChats(roleId: string, locale: Locale) {
  const loggedIn = useIsLoggedIn()
  const [state, setState] = useState<{ sessions: ChatSessionSummary[]; total: number }>({ sessions: [], total: 0 })
  useEffect(() => {
    setState({ sessions: [], total: 0 })
    if (!loggedIn) return
    const controller = new AbortController()
    characterSessions(roleId, locale, controller.signal).then(
      (found) => {
        if (!controller.signal.aborted) setState({ sessions: found.sessions, total: found.total })
      },
      // Without the list the page still offers a new chat.
      () => {},
    )
    return () => controller.abort()
  }, [loggedIn, roleId, locale])
  return state
}

/** "Your chats": each with its title, last message and date; opening one continues it. */
export function CharacterChatList({
  sessions,
  total,
  locale,
}: {
  sessions: ChatSessionSummary[]
  total: number
  locale: Locale
}) {
  const { t } = useTranslation('chat')
  if (sessions.length === 0) return null
  return (
    <section aria-labelledby="your-chats" className="mt-8" data-testid="character-chats">
      <h2 id="your-chats" className="mb-3 text-xl font-semibold">
        {t('tidy.yourChats')}
      </h2>
      <ul className="grid gap-2 sm:grid-cols-2">
        {sessions.map((session) => (
          <li key={session.id}>
            <LocalizedLink
              to={`/chat/${session.id}`}
              className="block rounded-2xl border border-zinc-800 bg-zinc-900 p-3 hover:border-violet-500"
            >
              <span className="flex items-baseline justify-between gap-3">
                <span dir="auto" className="truncate font-medium text-zinc-100">
                  {session.title ?? session.role?.name}
                </span>
                <time dateTime={session.updatedAt} className="shrink-0 text-xs text-zinc-400">
                  {formatDate(locale, session.updatedAt, 'medium')}
                </time>
              </span>
              {session.lastMessage ? (
                <span dir="auto" className="mt-1 line-clamp-2 block text-sm text-zinc-300">
                  {previewText(session.lastMessage)}
                </span>
              ) : null}
            </LocalizedLink>
          </li>
        ))}
      </ul>
      {total > sessions.length ? (
        <LocalizedLink to="/chats" className="mt-3 inline-block text-sm text-violet-300 hover:underline">
          {t('tidy.allChats')}
        </LocalizedLink>
      ) : null}
    </section>
  )
}
