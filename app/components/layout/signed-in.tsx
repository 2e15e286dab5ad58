import { Gem, History, LogOut, Pin, Search } from 'lucide-react'
import { NavLink, useParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { useMyChats } from '#app/features/chat/my-chats.ts'
import { formatNumber } from '#app/lib/format.ts'
import { api } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { previewText } from '#app/lib/plain-text.ts'
import { usePoints } from '#app/lib/points.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { clearTokens, getRefreshToken } from '#app/lib/session.ts'
import { useUserInfo } from '#app/lib/user-info.ts'
import { imageVariantUrl } from '#contracts/images.ts'

// The parts of the shell only a signed-in person sees. The server always renders the signed-out
// shell (the tokens live in the browser), so this module, with the API client, the balance and the
// chat list behind it, is loaded on its own (see signed-in-lazy.tsx) and visitors never fetch it.

/** The top bar's end for a signed-in person: the balance, the account link and Log out. */
export function AccountActions() {
  const { t } = useTranslation()
  const user = useUserInfo()
  // Logout ends the login on the server too; the browser forgets the tokens either way.
  const logout = () => {
    const refreshToken = getRefreshToken()
    clearTokens()
    if (refreshToken) api('/logout', { method: 'POST', body: { refreshToken } }).catch(() => {})
  }
  return (
    <>
      <Balance />
      <LocalizedLink to="/account" className="rounded-full" title={t('topBar.account')} data-testid="account-link">
        <img
          src={user?.avatar ?? '/default-avatar.svg'}
          alt={user ? user.username : t('topBar.account')}
          width={32}
          height={32}
          className="size-8 rounded-full"
        />
      </LocalizedLink>
      <button type="button" className="button-ghost" onClick={logout}>
        <LogOut aria-hidden="true" className="size-4" />
        {t('topBar.logout')}
      </button>
    </>
  )
}

/** The diamonds held, linking to the plans; '…' until known. */
function Balance() {
  const { t } = useTranslation()
  const locale = routeLocale(useParams())
  const { points, failed } = usePoints()
  const label = failed ? t('topBar.pointsFailed') : t('topBar.diamonds', { count: points ?? 0 })
  return (
    <LocalizedLink
      to="/subscribe"
      className="button-ghost tabular-nums"
      aria-label={label}
      title={label}
      data-testid="balance"
    >
      <Gem aria-hidden="true" className="size-4 text-violet-300" />
      {failed ? '!' : points === null ? '…' : formatNumber(locale, points)}
    </LocalizedLink>
  )
}

/** The sidebar's 'My Chats' section with the link to all chats. */
export function MyChatsSection() {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  return (
    <section aria-labelledby="my-chats-title" className="mt-6">
      <h2 id="my-chats-title" className="flex items-center gap-2 px-3 text-xs font-semibold uppercase text-zinc-400">
        <History aria-hidden="true" className="size-4" />
        {t('nav.myChats')}
      </h2>
      <MyChats />
      <NavLink to={localize('/chats')} end className="nav-item mt-1 text-sm" data-testid="all-chats">
        <Search aria-hidden="true" className="size-4 shrink-0" />
        {t('chatTidy.allChats')}
      </NavLink>
    </section>
  )
}

/** The signed-in user's chats, pinned first, then newest first ('No chat history' when none). */
function MyChats() {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  const { sessions, loaded, failed } = useMyChats()
  if (failed && sessions.length === 0)
    return <p className="px-3 py-2 text-sm text-red-300">{t('nav.sessionsFailed')}</p>
  if (!loaded && sessions.length === 0) return null
  if (sessions.length === 0) return <p className="px-3 py-2 text-sm text-zinc-400">{t('nav.noChatHistory')}</p>
  return (
    <ul className="mt-2 space-y-1" data-testid="my-chats">
      {sessions.map((session) => (
        <li key={session.id}>
          <NavLink to={localize(`/chat/${session.id}`)} className="nav-item items-start">
            <img
              src={imageVariantUrl(session.role?.avatar, 'square-128') ?? '/default-avatar.svg'}
              alt=""
              width={32}
              height={32}
              loading="lazy"
              className="size-8 shrink-0 rounded-full object-cover"
            />
            <span className="min-w-0">
              <span className="flex items-center gap-1">
                {session.pinned ? (
                  <Pin aria-label={t('chatTidy.pinned')} className="size-3 shrink-0 text-violet-300" />
                ) : null}
                <span dir="auto" className="block truncate text-sm font-medium text-zinc-100">
                  {session.title ?? session.role?.name ?? t('nav.newChat')}
                </span>
              </span>
              {session.lastMessage ? (
                <span dir="auto" className="block truncate text-xs text-zinc-400">
                  {previewText(session.lastMessage)}
                </span>
              ) : null}
            </span>
          </NavLink>
        </li>
      ))}
    </ul>
  )
}
