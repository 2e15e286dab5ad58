import { useState } from 'react'
import { useRouteLoaderData } from 'react-router'
import { Redirecting, useFullPageRedirect } from '#app/components/redirecting.tsx'
import { api } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/** 'Continue with Google', shown only when Google sign-in is configured on the server. */
export function GoogleButton({ redirectUrl }: { redirectUrl: string }) {
  const { t } = useTranslation('auth')
  const root = useRouteLoaderData('root') as { features?: { googleSignIn?: boolean } } | undefined
  const { redirecting, redirect } = useFullPageRedirect()
  const [failed, setFailed] = useState(false)
  if (!root?.features?.googleSignIn) return null
  const start = async () => {
    setFailed(false)
    try {
      const { url } = await api<{ url: string }>('/public/auth/google/start', { query: { redirect_url: redirectUrl } })
      redirect(url)
    } catch {
      setFailed(true)
    }
  }
  return (
    <div className="mb-4">
      <button type="button" className="button-ghost h-11 w-full justify-center border border-zinc-700" onClick={start}>
        <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5">
          <path
            fill="#4285F4"
            d="M22.5 12.3c0-.8-.1-1.5-.2-2.3H12v4.3h5.9a5 5 0 0 1-2.2 3.3v2.7h3.6c2.1-1.9 3.2-4.8 3.2-8z"
          />
          <path
            fill="#34A853"
            d="M12 23c3 0 5.5-1 7.3-2.7l-3.6-2.7c-1 .7-2.2 1-3.7 1-2.9 0-5.3-1.9-6.2-4.5H2.1v2.8A11 11 0 0 0 12 23z"
          />
          <path fill="#FBBC05" d="M5.8 14.1a6.6 6.6 0 0 1 0-4.2V7.1H2.1a11 11 0 0 0 0 9.8z" />
          <path
            fill="#EA4335"
            d="M12 5.4c1.6 0 3.1.6 4.2 1.7l3.2-3.2A11 11 0 0 0 2.1 7.1l3.7 2.8C6.7 7.3 9.1 5.4 12 5.4z"
          />
        </svg>
        {t('google.continue')}
      </button>
      {failed ? (
        <p role="alert" className="mt-2 text-sm text-rose-300">
          {t('google.failed')}
        </p>
      ) : null}
      <p className="mt-4 text-center text-xs uppercase text-zinc-400">{t('google.or')}</p>
      {redirecting ? <Redirecting /> : null}
    </div>
  )
}
