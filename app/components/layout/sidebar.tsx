import { CreditCard, EyeOff, History, Home, Users, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { NavLink, useRevalidator, useRouteLoaderData } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { api } from '#app/lib/http.ts'
import { notify } from '#app/lib/notify.tsx'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { LanguageSwitcher } from './language-switcher.tsx'

export function Sidebar({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  const loggedIn = useIsLoggedIn()
  const items = [
    { to: '/', label: t('nav.home'), icon: Home, end: true },
    { to: '/characters', label: t('nav.characters'), icon: Users, end: false },
    { to: '/subscribe', label: t('nav.pricing'), icon: CreditCard, end: false },
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
          {items.map(({ to, label, icon: Icon, end }) => (
            <li key={to}>
              <NavLink to={localize(to)} end={end} className="nav-item">
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
            <p className="px-3 py-2 text-sm text-zinc-400">{t('nav.noChatHistory')}</p>
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
