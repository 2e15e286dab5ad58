import { LogIn } from 'lucide-react'
import { type ReactNode, useSyncExternalStore } from 'react'
import { useLocation } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { useIsLoggedIn } from '#app/lib/session.ts'

const subscribeNothing = () => () => {}

/** False while the server renders and the page hydrates, true after: the session lives in the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  )
}

/**
 * Pages of one's own characters: the server renders a neutral "Loading..." (it cannot see the
 * session), the browser then shows the page to a signed-in user and a login link to anyone else.
 */
export function SignedInGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation('characters-edit')
  const hydrated = useHydrated()
  const loggedIn = useIsLoggedIn()
  const { pathname, search } = useLocation()
  if (!hydrated) {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {t('gate.loading')}
      </p>
    )
  }
  if (!loggedIn) {
    const back = encodeURIComponent(pathname + search)
    return (
      <section className="mx-auto mt-6 max-w-md rounded-2xl border border-zinc-800 bg-zinc-900 p-6 text-center">
        <h2 className="text-xl font-semibold">{t('gate.loginTitle')}</h2>
        <p className="mt-2 text-zinc-400">{t('gate.loginText')}</p>
        <LocalizedLink to={`/login?redirect_url=${back}`} className="button-primary mt-6">
          <LogIn aria-hidden="true" className="size-5" />
          {t('gate.login')}
        </LocalizedLink>
      </section>
    )
  }
  return children
}
