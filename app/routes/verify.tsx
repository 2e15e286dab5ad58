import { useEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { verifyEmail } from '#app/features/accounts/api/accounts.ts'
import { AuthCard, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export const handle = { i18n: ['auth'] }

/** The page the verification link opens: confirms the address once, then offers the login. */
export default function Verify() {
  const { t } = useTranslation('auth')
  // API errors are worded once, in common.json, for every page.
  const { t: tCommon } = useTranslation()
  const [search] = useSearchParams()
  const token = search.get('token')
  const [state, setState] = useState<{ kind: 'working' | 'done' | 'error'; message?: string }>({ kind: 'working' })
  const started = useRef(false)

  useEffect(() => {
    if (started.current) return
    started.current = true
    if (!token) {
      setState({ kind: 'error', message: t('verify.missingToken') })
      return
    }
    verifyEmail(token).then(
      () => setState({ kind: 'done' }),
      (error: unknown) => setState({ kind: 'error', message: apiErrorMessage(tCommon, error) }),
    )
  }, [token, t, tCommon])

  return (
    <AuthCard title={t('verify.title')}>
      <PageMeta title={t('verify.title')} description={t('verify.title')} />
      <meta name="robots" content="noindex" />
      {state.kind === 'working' ? <p role="status">{t('verify.verifying')}</p> : null}
      {state.kind === 'done' ? <FormMessage kind="success">{t('verify.done')}</FormMessage> : null}
      {state.kind === 'error' ? <FormMessage kind="error">{state.message}</FormMessage> : null}
      {state.kind !== 'working' ? (
        <LocalizedLink to="/login" className="button-primary w-full">
          {t('verify.toLogin')}
        </LocalizedLink>
      ) : null}
    </AuthCard>
  )
}
