import { useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { register } from '#app/features/accounts/api/accounts.ts'
import { AuthCard, Field, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { GoogleButton } from '#app/features/accounts/components/google-button.tsx'
import { HumanCheck, type HumanCheckProblem } from '#app/features/accounts/components/human-check.tsx'
import { ResendVerification } from '#app/features/accounts/components/resend-verification.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { USERNAME_MAX, USERNAME_MIN } from '#contracts/accounts.ts'
import { localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/register.ts'

export const handle = { i18n: ['auth'] }

export default function Register({ params }: Route.ComponentProps) {
  const { t } = useTranslation('auth')
  // API errors are worded once, in common.json, for every page.
  const { t: tCommon } = useTranslation()
  const locale = routeLocale(params)
  const [fields, setFields] = useState({ username: '', email: '', password: '' })
  const [token, setToken] = useState('')
  const [widgetKey, setWidgetKey] = useState(0)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [registeredEmail, setRegisteredEmail] = useState<string | null>(null)

  const problemMessages: Record<HumanCheckProblem, string> = {
    configError: t('register.configError'),
    containerMissing: t('register.containerMissing'),
    loadFailed: t('register.loadFailed'),
    failed: t('captcha.error'),
  }
  const onProblem = (problem: HumanCheckProblem) => setError(problemMessages[problem])

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setError(null)
    if (!fields.username.trim() || !fields.email.trim() || !fields.password) return setError(t('register.fillAll'))
    if (!token) return setError(t('register.completeVerification'))
    setBusy(true)
    try {
      await register({ ...fields, turnstileToken: token, locale })
      notify(t('register.success'), { type: 'success' })
      setRegisteredEmail(fields.email.trim())
    } catch (failure) {
      setError(
        apiErrorMessage(tCommon, failure, {
          own: {
            VERIFICATION_FAILED: (details) =>
              t('register.verificationFailed', { error: details?.reason ?? t('register.unknownError') }),
          },
          otherwise: t('register.failed'),
        }),
      )
      // A solved puzzle is good for one try: get a fresh one.
      setToken('')
      setWidgetKey((k) => k + 1)
    } finally {
      setBusy(false)
    }
  }

  const set = (name: keyof typeof fields) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setFields({ ...fields, [name]: event.target.value })

  return (
    <AuthCard title={t('register.title')}>
      <PageMeta title={t('register.title')} description={t('register.metaDescription')} />
      <meta name="robots" content="noindex" />
      {registeredEmail ? (
        <div>
          <FormMessage kind="success">{t('register.success')}</FormMessage>
          <ResendVerification email={registeredEmail} />
        </div>
      ) : (
        <>
          <GoogleButton redirectUrl={localizePath(locale, '/')} />
          <form onSubmit={submit} noValidate>
            {error ? <FormMessage kind="error">{error}</FormMessage> : null}
            <Field
              label={t('fields.username')}
              hint={t('fields.usernameHint')}
              name="username"
              autoComplete="username"
              minLength={USERNAME_MIN}
              maxLength={USERNAME_MAX}
              value={fields.username}
              onChange={set('username')}
            />
            <Field
              label={t('fields.email')}
              name="email"
              type="email"
              autoComplete="email"
              value={fields.email}
              onChange={set('email')}
            />
            <Field
              label={t('fields.password')}
              hint={t('fields.passwordHint')}
              name="password"
              type="password"
              autoComplete="new-password"
              value={fields.password}
              onChange={set('password')}
            />
            <HumanCheck key={widgetKey} onToken={setToken} onProblem={onProblem} />
            <button type="submit" className="button-primary mt-4 w-full" disabled={busy}>
              {busy ? t('register.submitting') : t('register.submit')}
            </button>
          </form>
        </>
      )}
      <p className="mt-6 text-center text-sm text-zinc-400">
        {t('register.haveAccount')}{' '}
        <LocalizedLink to="/login" className="text-violet-300 underline hover:text-violet-200">
          {t('register.toLogin')}
        </LocalizedLink>
      </p>
    </AuthCard>
  )
}
