import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { resetPassword } from '#app/features/accounts/api/accounts.ts'
import { AuthCard, Field, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export const handle = { i18n: ['auth'] }

export default function ResetPassword() {
  const { t } = useTranslation('auth')
  // API errors are worded once, in common.json, for every page.
  const { t: tCommon } = useTranslation()
  const [search] = useSearchParams()
  const [password, setPassword] = useState('')
  const [state, setState] = useState<{ kind: 'idle' | 'busy' | 'done' | 'error'; message?: string }>({ kind: 'idle' })

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    const token = search.get('token')
    if (!token) return setState({ kind: 'error', message: t('verify.missingToken') })
    if (!password) return setState({ kind: 'error', message: t('register.fillAll') })
    setState({ kind: 'busy' })
    try {
      await resetPassword(token, password)
      setState({ kind: 'done' })
    } catch (error) {
      setState({ kind: 'error', message: apiErrorMessage(tCommon, error) })
    }
  }

  return (
    <AuthCard title={t('reset.title')}>
      <PageMeta title={t('reset.title')} description={t('reset.title')} />
      <meta name="robots" content="noindex" />
      {state.kind === 'done' ? (
        <>
          <FormMessage kind="success">{t('reset.done')}</FormMessage>
          <LocalizedLink to="/login" className="button-primary w-full">
            {t('verify.toLogin')}
          </LocalizedLink>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          {state.kind === 'error' ? <FormMessage kind="error">{state.message}</FormMessage> : null}
          <Field
            label={t('fields.newPassword')}
            hint={t('fields.passwordHint')}
            name="password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <button type="submit" className="button-primary w-full" disabled={state.kind === 'busy'}>
            {t('reset.submit')}
          </button>
        </form>
      )}
    </AuthCard>
  )
}
