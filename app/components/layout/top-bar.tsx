import { LogOut, Menu, Search } from 'lucide-react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { Form } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { clearTokens, useIsLoggedIn } from '#app/lib/session.ts'

export function TopBar({ menuOpen, onToggleMenu }: { menuOpen: boolean; onToggleMenu: () => void }) {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  const loggedIn = useIsLoggedIn()
  const searchId = useId()
  return (
    <header className="sticky top-0 z-20 flex h-14 items-center gap-3 border-b border-zinc-800 bg-zinc-950/90 px-4 backdrop-blur">
      <button
        type="button"
        className="icon-button lg:hidden"
        aria-label={t('nav.openMenu')}
        aria-expanded={menuOpen}
        aria-controls="sidebar"
        onClick={onToggleMenu}
      >
        <Menu aria-hidden="true" className="size-5" />
      </button>
      <Form role="search" method="get" action={localize('/characters')} className="relative min-w-0 flex-1 sm:max-w-md">
        <label htmlFor={searchId} className="sr-only">
          {t('topBar.searchLabel')}
        </label>
        <Search
          aria-hidden="true"
          className="pointer-events-none absolute start-3 top-1/2 size-4 -translate-y-1/2 text-zinc-400"
        />
        <input
          id={searchId}
          name="q"
          type="search"
          maxLength={100}
          placeholder={t('topBar.searchPlaceholder')}
          className="h-9 w-full rounded-full border border-zinc-800 bg-zinc-900 ps-9 pe-3 text-sm text-zinc-100 placeholder:text-zinc-400 focus:border-violet-400 focus:outline-none"
        />
      </Form>
      <div className="ms-auto flex items-center gap-2">
        {loggedIn ? (
          <>
            <img
              src="/default-avatar.svg"
              alt={t('topBar.account')}
              width={32}
              height={32}
              className="size-8 rounded-full"
            />
            <button type="button" className="button-ghost" onClick={() => clearTokens()}>
              <LogOut aria-hidden="true" className="size-4" />
              {t('topBar.logout')}
            </button>
          </>
        ) : (
          <LocalizedLink to="/login" className="button-primary h-9 px-4 text-sm">
            {t('topBar.login')}
          </LocalizedLink>
        )}
      </div>
    </header>
  )
}
