import { ShieldCheck } from 'lucide-react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router'
import { PageMeta } from '#app/components/page-meta.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { adminApi, setConfirmer, setSecondFactorOpener } from '#app/features/console/admin-api.ts'
import { ConfirmCodeDialog } from '#app/features/console/components/confirm-code-dialog.tsx'
import { type AdminMe, CONSOLE_PAGES, type ConsoleState } from '#app/features/console/console-state.ts'
import { getConsoleToken } from '#app/features/console/console-token.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { localizePath, splitLocalePath } from '#contracts/locales.ts'

export const handle = { i18n: ['console', 'characters-edit'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/**
 * `/console`: the operator console (issue 23, ADR 054). The server renders "Loading…" (the login
 * lives in the browser); the browser asks `GET /api/admin/me`: a user who is not staff sees the
 * staff-only page and no data, staff without an open console token go to the second-factor page,
 * the rest see the navigation their role allows and the page.
 */
export default function ConsoleLayout() {
  const { t } = useTranslation('console')
  return (
    <div className="mx-auto max-w-6xl">
      <PageMeta title={t('meta.title')} description={t('meta.description')} />
      <meta name="robots" content="noindex, nofollow" />
      <SignedInGate>
        <StaffConsole />
      </SignedInGate>
    </div>
  )
}

type Load =
  | { state: 'loading' }
  | { state: 'staffOnly' }
  | { state: 'failed'; problem: string }
  | { state: 'ready'; me: AdminMe }

function StaffConsole() {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const [load, setLoad] = useState<Load>({ state: 'loading' })
  const [confirming, setConfirming] = useState(false)
  const resolveConfirm = useRef<((confirmed: boolean) => void) | null>(null)
  const navigate = useNavigate()
  const { pathname, search } = useLocation()
  const { locale, rest } = splitLocalePath(pathname)
  const localize = useCallback((path: string) => localizePath(locale, path), [locale])
  const onSecondFactorPage = rest === '/console/second-factor'

  const refresh = useCallback(async () => {
    try {
      setLoad({ state: 'ready', me: await adminApi<AdminMe>('/admin/me') })
    } catch (error) {
      if (isApiError(error, 'STAFF_ONLY')) setLoad({ state: 'staffOnly' })
      else setLoad({ state: 'failed', problem: apiErrorMessage(tc, error) })
    }
  }, [tc])

  useEffect(() => {
    void refresh()
  }, [refresh])

  // adminApi's two questions: a second factor (go to its page) and a fresh code (the dialog).
  useEffect(() => {
    setSecondFactorOpener(() => {
      const back = window.location.pathname + window.location.search
      void navigate(`${localize('/console/second-factor')}?back=${encodeURIComponent(back)}`)
      void refresh()
    })
    setConfirmer(
      () =>
        new Promise<boolean>((resolve) => {
          resolveConfirm.current = resolve
          setConfirming(true)
        }),
    )
    return () => {
      setSecondFactorOpener(null)
      setConfirmer(null)
    }
  }, [navigate, localize, refresh])

  const me = load.state === 'ready' ? load.me : null
  const locked = me !== null && (!me.unlocked || !getConsoleToken())
  useEffect(() => {
    if (locked && !onSecondFactorPage) {
      void navigate(`${localize('/console/second-factor')}?back=${encodeURIComponent(pathname + search)}`, {
        replace: true,
      })
    }
  }, [locked, onSecondFactorPage, navigate, localize, pathname, search])

  if (load.state === 'loading' || (locked && !onSecondFactorPage)) {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {t('loading')}
      </p>
    )
  }
  if (load.state === 'staffOnly') {
    return (
      <section
        className="mx-auto mt-6 max-w-md rounded-2xl border border-zinc-800 bg-zinc-900 p-6 text-center"
        data-testid="staff-only"
      >
        <h1 className="text-xl font-semibold">{t('staffOnly.title')}</h1>
        <p className="mt-2 text-zinc-400">{t('staffOnly.text')}</p>
      </section>
    )
  }
  if (load.state === 'failed') {
    return (
      <section className="mx-auto mt-6 max-w-md text-center">
        <p role="alert" className="text-rose-300">
          {load.problem}
        </p>
        <button type="button" className="button-secondary mt-4" onClick={() => void refresh()}>
          {t('retry')}
        </button>
      </section>
    )
  }
  const state: ConsoleState = { me: load.me, refresh }
  const role = load.me.role ?? 'moderator'
  return (
    <div className="flex flex-col gap-6 md:flex-row">
      {onSecondFactorPage ? null : (
        <nav aria-label={t('nav.label')} className="md:w-44 md:shrink-0 lg:w-48">
          <p className="mb-3 flex flex-wrap items-center gap-x-2 px-3 text-sm text-zinc-400" data-testid="console-role">
            <ShieldCheck aria-hidden="true" className="size-4" />
            {t('role.label')}: <span className="font-medium text-zinc-200">{t(`role.${role}`)}</span>
          </p>
          <ul className="space-y-1">
            {CONSOLE_PAGES.filter((page) => page.role === 'moderator' || role === 'admin').map((page) => (
              <li key={page.key}>
                {/* A page's own pages (a report, an order) keep its entry marked; the overview is only itself. */}
                <NavLink to={localize(page.path)} end={page.path === '/console'} className="nav-item">
                  {t(`nav.${page.key}`)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <div className="min-w-0 flex-1">
        <Outlet context={state} />
      </div>
      {confirming ? (
        <ConfirmCodeDialog
          onDone={(confirmed) => {
            setConfirming(false)
            resolveConfirm.current?.(confirmed)
            resolveConfirm.current = null
          }}
        />
      ) : null}
    </div>
  )
}
