import { Download, LogIn, LogOut, Trash2, UserRound } from 'lucide-react'
import { useCallback, useEffect, useState } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { downloadMyData, getAccount, logoutEverywhere } from '#app/features/account/api/account.ts'
import { ConfirmDeletion } from '#app/features/account/components/confirm-deletion.tsx'
import { useHydrated } from '#app/features/characters/components/signed-in-gate.tsx'
import { type CurrentSubscription, currentSubscription } from '#app/features/pricing/api.ts'
import { PlanRenewal } from '#app/features/pricing/plan-renewal.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { clearTokens, useIsLoggedIn } from '#app/lib/session.ts'
import type { AccountSummary } from '#contracts/account-schemas.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Route } from './+types/account.ts'

export const handle = { i18n: ['account', 'pricing'] }

/**
 * `/account`: the signed-in user's details, their plan (with "Cancel plan"), a download of all
 * their data, "Log out everywhere", and account deletion.
 */
export default function Account({ params }: Route.ComponentProps) {
  const { t } = useTranslation('account')
  const hydrated = useHydrated()
  const loggedIn = useIsLoggedIn()
  const { pathname } = useLocation()
  return (
    <div className="mx-auto max-w-2xl">
      <PageMeta title={t('meta.title')} description={t('meta.description')} />
      <meta name="robots" content="noindex" />
      <h1 className="mb-6 text-2xl font-bold sm:text-3xl">{t('title')}</h1>
      {!hydrated ? (
        <p role="status" className="py-10 text-center text-zinc-400">
          {t('profile.loading')}
        </p>
      ) : loggedIn ? (
        <AccountSections locale={routeLocale(params)} />
      ) : (
        <section className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6 text-center">
          <h2 className="text-xl font-semibold">{t('gate.title')}</h2>
          <LocalizedLink to={`/login?redirect_url=${encodeURIComponent(pathname)}`} className="button-primary mt-6">
            <LogIn aria-hidden="true" className="size-5" />
            {t('gate.login')}
          </LocalizedLink>
        </section>
      )}
    </div>
  )
}

type Load = { kind: 'loading' } | { kind: 'failed'; reason: string } | { kind: 'ready'; account: AccountSummary }

function AccountSections({ locale }: { locale: Locale }) {
  const { t } = useTranslation('account')
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  const [confirming, setConfirming] = useState(false)
  const [confirmingLogout, setConfirmingLogout] = useState(false)
  const [downloading, setDownloading] = useState(false)

  const fetchAccount = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      getAccount(signal).then(
        (account) => setLoad({ kind: 'ready', account }),
        (error: unknown) => {
          if (!signal?.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    fetchAccount(controller.signal)
    return () => controller.abort()
  }, [fetchAccount])

  if (load.kind === 'loading') {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {t('profile.loading')}
      </p>
    )
  }
  if (load.kind === 'failed') {
    return (
      <div role="alert" className="py-10 text-center">
        <p className="text-rose-300">{t('profile.loadFailed', { reason: load.reason })}</p>
        <button type="button" className="button-secondary mt-4" onClick={() => fetchAccount()}>
          {t('profile.retry')}
        </button>
      </div>
    )
  }
  const { account } = load
  const download = async () => {
    setDownloading(true)
    try {
      await downloadMyData()
      notify(t('export.done'), { type: 'success' })
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    } finally {
      setDownloading(false)
    }
  }
  return (
    <div className="space-y-6">
      <section aria-labelledby="profile-heading" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6">
        <h2 id="profile-heading" className="text-lg font-semibold">
          {t('profile.heading')}
        </h2>
        <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
          <dt className="text-zinc-400">{t('profile.username')}</dt>
          <dd data-testid="account-username">
            <bdi>{account.username}</bdi>
          </dd>
          <dt className="text-zinc-400">{t('profile.email')}</dt>
          <dd data-testid="account-email">
            <bdi dir="ltr">{account.email}</bdi>
          </dd>
        </dl>
        <p className="mt-3 text-xs text-zinc-400">
          {t('profile.memberSince', { date: formatDate(locale, account.createdAt) })}
        </p>
      </section>

      <PlanSection locale={locale} />

      <section aria-labelledby="personas-heading" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6">
        <h2 id="personas-heading" className="text-lg font-semibold">
          {t('personas.heading')}
        </h2>
        <p className="mt-2 text-sm text-zinc-300">{t('personas.text')}</p>
        <LocalizedLink to="/personas" className="button-secondary mt-4" data-testid="account-personas">
          <UserRound aria-hidden="true" className="size-4" />
          {t('personas.link')}
        </LocalizedLink>
      </section>

      <section aria-labelledby="export-heading" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6">
        <h2 id="export-heading" className="text-lg font-semibold">
          {t('export.heading')}
        </h2>
        <p className="mt-2 text-sm text-zinc-300">{t('export.text')}</p>
        <button
          type="button"
          className="button-secondary mt-4"
          onClick={download}
          disabled={downloading}
          data-testid="download-data"
        >
          <Download aria-hidden="true" className="size-4" />
          {downloading ? t('export.busy') : t('export.button')}
        </button>
      </section>

      <section aria-labelledby="logout-all-heading" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6">
        <h2 id="logout-all-heading" className="text-lg font-semibold">
          {t('logoutAll.heading')}
        </h2>
        <p className="mt-2 text-sm text-zinc-300">{t('logoutAll.text')}</p>
        <button
          type="button"
          className="button-secondary mt-4"
          onClick={() => setConfirmingLogout(true)}
          data-testid="logout-everywhere"
        >
          <LogOut aria-hidden="true" className="size-4" />
          {t('logoutAll.button')}
        </button>
      </section>
      {confirmingLogout ? <ConfirmLogoutEverywhere onClose={() => setConfirmingLogout(false)} /> : null}

      <section aria-labelledby="delete-heading" className="rounded-2xl border border-rose-900 bg-zinc-900 p-6">
        <h2 id="delete-heading" className="text-lg font-semibold text-rose-200">
          {t('delete.heading')}
        </h2>
        <p className="mt-2 text-sm text-zinc-300">{t('delete.text')}</p>
        <button
          type="button"
          className="button-primary mt-4 bg-rose-700 hover:bg-rose-800"
          onClick={() => setConfirming(true)}
          data-testid="delete-account"
        >
          <Trash2 aria-hidden="true" className="size-4" />
          {t('delete.button')}
        </button>
      </section>
      {confirming ? <ConfirmDeletion account={account} onClose={() => setConfirming(false)} /> : null}
    </div>
  )
}

type PlanLoad =
  | { kind: 'loading' }
  | { kind: 'failed'; reason: string }
  | { kind: 'ready'; subscription: CurrentSubscription }

/** The plan held: the free one with a way to the plans, or a paid one with its renewal. */
function PlanSection({ locale }: { locale: Locale }) {
  const { t } = useTranslation('pricing')
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<PlanLoad>({ kind: 'loading' })
  useEffect(() => {
    const controller = new AbortController()
    currentSubscription(controller.signal).then(
      ({ subscription }) => setLoad({ kind: 'ready', subscription }),
      (error: unknown) => {
        if (!controller.signal.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
      },
    )
    return () => controller.abort()
  }, [tCommon])

  const subscription = load.kind === 'ready' ? load.subscription : null
  return (
    <section aria-labelledby="plan-heading" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-6">
      <h2 id="plan-heading" className="text-lg font-semibold">
        {t('manage.heading')}
      </h2>
      {load.kind === 'loading' ? (
        <p role="status" className="mt-2 text-sm text-zinc-400">
          {t('manage.loading')}
        </p>
      ) : load.kind === 'failed' ? (
        <p role="alert" className="mt-2 text-sm text-rose-300">
          {t('manage.loadFailed', { reason: load.reason })}
        </p>
      ) : subscription ? (
        <div className="mt-2 space-y-3">
          <p className="font-medium" data-testid="account-plan">
            {t(subscription.billingCycle === 'yearly' ? 'manage.yearlyPlan' : 'manage.monthlyPlan', {
              plan: t(`plans.${subscription.planId}`, { defaultValue: subscription.planId }),
            })}
          </p>
          <PlanRenewal
            subscription={subscription}
            locale={locale}
            onChange={(next) => setLoad({ kind: 'ready', subscription: next })}
          />
        </div>
      ) : (
        <div className="mt-2">
          <p className="text-sm text-zinc-300" data-testid="account-plan">
            {t('manage.free')}
          </p>
          <LocalizedLink to="/subscribe" className="button-secondary mt-4">
            {t('manage.seePlans')}
          </LocalizedLink>
        </div>
      )}
    </section>
  )
}

/**
 * Asks before "Log out everywhere" (ADR 021); on success the browser forgets its tokens, as Logout
 * does, and goes to the login page.
 */
function ConfirmLogoutEverywhere({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('account')
  const { t: tCommon } = useTranslation()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  return (
    <ConfirmDialog
      title={t('logoutAll.dialogTitle')}
      text={t('logoutAll.dialogText')}
      cancelLabel={t('logoutAll.cancel')}
      confirmLabel={t('logoutAll.confirm')}
      busyLabel={t('logoutAll.busy')}
      confirmTestId="confirm-logout-everywhere"
      onConfirm={async () => {
        await logoutEverywhere()
        clearTokens()
        notify(t('logoutAll.done'), { type: 'success' })
        navigate(localize('/login'), { replace: true })
      }}
      describeError={(error) => apiErrorMessage(tCommon, error)}
      onClose={onClose}
    />
  )
}
