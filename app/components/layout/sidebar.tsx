import { CreditCard, EyeOff, History, Home, Pin, Search, UserPen, Users, X } from 'lucide-react'
import { NavLink, useLocation, useRevalidator, useRouteLoaderData } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { useMyChats } from '#app/features/chat/my-chats.ts'
import { api } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { previewText } from '#app/lib/plain-text.ts'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { imageVariantUrl } from '#contracts/images.ts'
import { splitLocalePath } from '#contracts/locales.ts'
import { LanguageSwitcher } from './language-switcher.tsx'

export function Sidebar({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  const loggedIn = useIsLoggedIn()
  const { rest } = splitLocalePath(useLocation().pathname)
  const items: { to: string; label: string; icon: typeof Home; end: boolean; except?: string }[] = [
    { to: '/', label: t('nav.home'), icon: Home, end: true },
    // Not lit on My characters, which has its own entry.
    { to: '/characters', label: t('nav.characters'), icon: Users, end: false, except: '/characters/mine' },
    { to: '/subscribe', label: t('nav.pricing'), icon: CreditCard, end: false },
    ...(loggedIn ? [{ to: '/characters/mine', label: t('nav.myCharacters'), icon: UserPen, end: true }] : []),
  ]
  return (
    <aside
      id="sidebar"
      aria-label={t('nav.sidebar')}
      data-open={open}
      className="sidebar fixed inset-y-0 start-0 z-40 flex w-64 flex-col border-e border-zinc-800 bg-zinc-950 lg:sticky lg:top-0 lg:h-dvh"
    >
      <div className="flex h-14 items-center justify-between px-4">
        <NavLink to={localize('/')} className="text-lg font-bold text-violet-300">
          {t('brand')}
        </NavLink>
        <button type="button" className="icon-button lg:hidden" aria-label={t('nav.closeMenu')} onClick={onClose}>
          <X aria-hidden="true" className="size-5" />
        </button>
      </div>
      <nav aria-label={t('nav.main')} className="flex-1 overflow-y-auto px-2">
        <ul className="space-y-1">
          {items.map(({ to, label, icon: Icon, end, except }) => (
            <li key={to}>
              <NavLink
                to={localize(to)}
                end={end}
                className={({ isActive }) =>
                  isActive && !(except && rest.startsWith(except)) ? 'nav-item active' : 'nav-item'
                }
              >
                <Icon aria-hidden="true" className="size-5 shrink-0" />
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
        {loggedIn ? (
          <section aria-labelledby="my-chats-title" className="mt-6">
            <h2
              id="my-chats-title"
              className="flex items-center gap-2 px-3 text-xs font-semibold uppercase text-zinc-400"
            >
              <History aria-hidden="true" className="size-4" />
              {t('nav.myChats')}
            </h2>
            <MyChats />
            <NavLink to={localize('/chats')} end className="nav-item mt-1 text-sm" data-testid="all-chats">
              <Search aria-hidden="true" className="size-4 shrink-0" />
              {t('chatTidy.allChats')}
            </NavLink>
          </section>
        ) : null}
      </nav>
      <div className="space-y-1 border-t border-zinc-800 p-3">
        <HideAdultContent />
        <LanguageSwitcher />
      </div>
    </aside>
  )
}

/** Shown once adult content is unlocked: takes the age confirmation back (cookie and account). */
function HideAdultContent() {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as { adultConfirmed?: boolean } | undefined
  const revalidator = useRevalidator()
  if (!root?.adultConfirmed) return null
  const hide = async () => {
    try {
      await api('/public/age-confirmation', { method: 'POST', body: { confirmed: false } })
      await revalidator.revalidate()
      notify(t('adultContent.hidden'), { type: 'success' })
    } catch {
      notify(t('adultContent.failed'), { type: 'error' })
    }
  }
  return (
    <button type="button" className="nav-item w-full" onClick={hide}>
      <EyeOff aria-hidden="true" className="size-5 shrink-0" />
      {t('adultContent.hide')}
    </button>
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
