import { useEffect, useRef, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { AuthCard, FormMessage } from '#app/features/accounts/components/auth-card.tsx'
import { api } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { storeTokens } from '#app/lib/session.ts'
import type { TokenPair } from '#contracts/accounts.ts'
import { safeRedirectPath } from '#contracts/redirects.ts'
import type { Route } from './+types/google-callback.ts'

export const handle = { i18n: ['auth'] }

/** Where Google sends the browser back: finishes the sign-in and returns to where the user was. */
export default function GoogleCallback({ params }: Route.ComponentProps) {
  const { t } = useTranslation('auth')
  const locale = routeLocale(params)
  const [search] = useSearchParams()
  const navigate = useNavigate()
  const [failed, setFailed] = useState(false)
  const started = useRef(false)

  useEffect(() => {
    if (started.current) return
    started.current = true
    const code = search.get('code')
    const state = search.get('state')
    if (!code || !state) {
      setFailed(true)
      return
    }
    api<TokenPair & { redirect: string }>('/auth/google', { method: 'POST', body: { code, state, locale } }).then(
      ({ redirect, ...tokens }) => {
        storeTokens(tokens)
        navigate(safeRedirectPath(redirect, '/'), { replace: true })
      },
      () => setFailed(true),
    )
  }, [search, navigate, locale])

  return (
    <AuthCard title={t('login.title')}>
      <PageMeta title={t('login.title')} description={t('login.metaDescription')} />
      <meta name="robots" content="noindex" />
      {failed ? (
        <>
          <FormMessage kind="error">{t('google.failed')}</FormMessage>
          <LocalizedLink to="/login" className="button-primary w-full">
            {t('verify.toLogin')}
          </LocalizedLink>
        </>
      ) : (
        <p role="status">{t('google.signingIn')}</p>
      )}
    </AuthCard>
  )
}
