import { useState } from 'react'
import { PageMeta } from '#app/components/page-meta.tsx'
import { requestPasswordReset } from '#app/features/accounts/api/accounts.ts'
import { AuthCard, Field, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export const handle = { i18n: ['auth'] }

export default function ForgotPassword() {
  const { t } = useTranslation('auth')
  // API errors are worded once, in common.json, for every page.
  const { t: tCommon } = useTranslation()
  const [email, setEmail] = useState('')
  const [state, setState] = useState<{ kind: 'idle' | 'busy' | 'sent' | 'error'; message?: string }>({ kind: 'idle' })

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    if (!email.trim()) return setState({ kind: 'error', message: t('register.emailRequired') })
    setState({ kind: 'busy' })
    try {
      await requestPasswordReset(email.trim())
      setState({ kind: 'sent' })
    } catch (error) {
      setState({ kind: 'error', message: apiErrorMessage(tCommon, error) })
    }
  }

  return (
    <AuthCard title={t('forgot.title')}>
      <PageMeta title={t('forgot.title')} description={t('forgot.metaDescription')} />
      <meta name="robots" content="noindex" />
      {state.kind === 'sent' ? (
        <FormMessage kind="success">{t('forgot.sent')}</FormMessage>
      ) : (
        <form onSubmit={submit} noValidate>
          <p className="mb-4 text-sm text-zinc-300">{t('forgot.text')}</p>
          {state.kind === 'error' ? <FormMessage kind="error">{state.message}</FormMessage> : null}
          <Field
            label={t('fields.email')}
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button type="submit" className="button-primary w-full" disabled={state.kind === 'busy'}>
            {t('forgot.submit')}
          </button>
        </form>
      )}
    </AuthCard>
  )
}
