import { CreditCard, EyeOff, Home, UserPen, Users, X } from 'lucide-react'
import { NavLink, useLocation, useRevalidator, useRouteLoaderData } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { splitLocalePath } from '#contracts/locales.ts'
import { LanguageSwitcher } from './language-switcher.tsx'
import { MyChatsSection } from './signed-in-lazy.tsx'

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
        {loggedIn ? <MyChatsSection /> : null}
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
      // The API client is not part of the first load (see signed-in-lazy.tsx).
      const { api } = await import('#app/lib/http.ts')
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
