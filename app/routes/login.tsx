import { useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { login } from '#app/features/accounts/api/accounts.ts'
import { AuthCard, Field, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { GoogleButton } from '#app/features/accounts/components/google-button.tsx'
import { HumanCheck, type HumanCheckProblem } from '#app/features/accounts/components/human-check.tsx'
import { ResendVerification } from '#app/features/accounts/components/resend-verification.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { storeTokens } from '#app/lib/session.ts'
import { localizePath } from '#contracts/locales.ts'
import { safeRedirectPath } from '#contracts/redirects.ts'
import type { Route } from './+types/login.ts'

export const handle = { i18n: ['auth'] }

export default function Login({ params }: Route.ComponentProps) {
  const { t } = useTranslation('auth')
  // API errors are worded once, in common.json, for every page.
  const { t: tCommon } = useTranslation()
  const locale = routeLocale(params)
  const navigate = useNavigate()
  const [search] = useSearchParams()
  const [fields, setFields] = useState({ email: '', password: '', rememberMe: false })
  const [error, setError] = useState<string | null>(null)
  const [unverified, setUnverified] = useState(false)
  const [busy, setBusy] = useState(false)
  // After failed logins the server asks for a human check (ADR 023); the form shows it from then on.
  const [humanCheck, setHumanCheck] = useState(false)
  const [token, setToken] = useState('')
  const [widgetKey, setWidgetKey] = useState(0)

  const problemMessages: Record<HumanCheckProblem, string> = {
    configError: t('register.configError'),
    containerMissing: t('register.containerMissing'),
    loadFailed: t('register.loadFailed'),
    failed: t('captcha.error'),
  }

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setError(null)
    setUnverified(false)
    if (!fields.email.trim() || !fields.password) return setError(t('register.fillAll'))
    if (humanCheck && !token) return setError(t('register.completeVerification'))
    setBusy(true)
    try {
      storeTokens(
        await login({ ...fields, email: fields.email.trim(), locale, ...(token ? { turnstileToken: token } : {}) }),
      )
      // Back to where the user was: same-origin paths only.
      navigate(safeRedirectPath(search.get('redirect_url'), localizePath(locale, '/')), { replace: true })
    } catch (failure) {
      setError(apiErrorMessage(tCommon, failure, { otherwise: t('login.failed') }))
      setUnverified(isApiError(failure, 'EMAIL_NOT_VERIFIED'))
      if (isApiError(failure, 'HUMAN_VERIFICATION_REQUIRED')) setHumanCheck(true)
      // A solved puzzle is good for one try: get a fresh one.
      if (token) {
        setToken('')
        setWidgetKey((k) => k + 1)
      }
    } finally {
      setBusy(false)
    }
  }

  return (
    <AuthCard title={t('login.title')}>
      <PageMeta title={t('login.title')} description={t('login.metaDescription')} />
      <meta name="robots" content="noindex" />
      <GoogleButton redirectUrl={safeRedirectPath(search.get('redirect_url'), localizePath(locale, '/'))} />
      <form onSubmit={submit} noValidate>
        {error ? <FormMessage kind="error">{error}</FormMessage> : null}
        {unverified ? (
          <div className="mb-4">
            <ResendVerification email={fields.email} startCountdown={false} label={t('login.resendVerification')} />
          </div>
        ) : null}
        <Field
          label={t('fields.email')}
          name="email"
          type="email"
          autoComplete="email"
          value={fields.email}
          onChange={(e) => setFields({ ...fields, email: e.target.value })}
        />
        <Field
          label={t('fields.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={fields.password}
          onChange={(e) => setFields({ ...fields, password: e.target.value })}
        />
        {humanCheck ? (
          <div className="mb-4">
            <HumanCheck
              key={widgetKey}
              onToken={setToken}
              onProblem={(problem) => setError(problemMessages[problem])}
            />
          </div>
        ) : null}
        <div className="mb-4 flex items-center justify-between gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              name="rememberMe"
              checked={fields.rememberMe}
              onChange={(e) => setFields({ ...fields, rememberMe: e.target.checked })}
              className="size-4 accent-violet-500"
            />
            {t('login.rememberMe')}
          </label>
          <LocalizedLink to="/forgot-password" className="text-violet-300 hover:text-violet-200">
            {t('login.forgot')}
          </LocalizedLink>
        </div>
        <button type="submit" className="button-primary w-full" disabled={busy}>
          {busy ? t('login.submitting') : t('login.submit')}
        </button>
      </form>
      <p className="mt-4 text-xs text-zinc-400">
        {t('login.agreement')}{' '}
        <LocalizedLink to="/privacy-policy" className="underline">
          {t('login.privacyPolicy')}
        </LocalizedLink>
      </p>
      <p className="mt-6 text-center text-sm text-zinc-400">
        {t('login.noAccount')}{' '}
        <LocalizedLink to="/register" className="text-violet-300 underline hover:text-violet-200">
          {t('login.toRegister')}
        </LocalizedLink>
      </p>
    </AuthCard>
  )
}
