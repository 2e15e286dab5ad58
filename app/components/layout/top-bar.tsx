import { Menu, Search } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import { Form, useLocation, useNavigate, useSearchParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { ROLE_SEARCH_MAX_LENGTH } from '#contracts/catalogue.ts'
import { AccountActions } from './signed-in-lazy.tsx'

const SEARCH_DEBOUNCE_MS = 300

/**
 * 'Search AI characters...': typing opens the character list with `q` after a short pause; while
 * already on the list each pause replaces the history entry instead of stacking one per letter.
 */
function useSearchAsYouType(listPath: string) {
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const [params] = useSearchParams()
  const urlQuery = pathname === listPath ? (params.get('q') ?? '') : ''
  const [value, setValue] = useState(urlQuery)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  // Follow the URL when it changes by other means (Back, a link, clearing the filter).
  useEffect(() => setValue(urlQuery), [urlQuery])
  useEffect(() => () => clearTimeout(timer.current), [])
  const onChange = (next: string) => {
    setValue(next)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => {
      const query = next.trim()
      if (query === urlQuery) return
      const search = new URLSearchParams(pathname === listPath ? params : undefined)
      search.delete('page')
      if (query) search.set('q', query)
      else search.delete('q')
      const qs = search.toString()
      navigate(`${listPath}${qs ? `?${qs}` : ''}`, { replace: pathname === listPath, preventScrollReset: true })
    }, SEARCH_DEBOUNCE_MS)
  }
  return { value, onChange }
}

export function TopBar({ menuOpen, onToggleMenu }: { menuOpen: boolean; onToggleMenu: () => void }) {
  const { t } = useTranslation()
  const localize = useLocalizePath()
  const loggedIn = useIsLoggedIn()
  const searchId = useId()
  const search = useSearchAsYouType(localize('/characters'))
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
          maxLength={ROLE_SEARCH_MAX_LENGTH}
          value={search.value}
          onChange={(event) => search.onChange(event.target.value)}
          placeholder={t('topBar.searchPlaceholder')}
          className="h-9 w-full rounded-full border border-zinc-800 bg-zinc-900 ps-9 pe-3 text-sm text-zinc-100 placeholder:text-zinc-400 focus:border-violet-400 focus:outline-none"
        />
      </Form>
      <div className="ms-auto flex items-center gap-2">
        {loggedIn ? (
          <AccountActions />
        ) : (
          <LocalizedLink to="/login" className="button-primary h-9 px-4 text-sm">
            {t('topBar.login')}
          </LocalizedLink>
        )}
      </div>
    </header>
  )
}
