import { useEffect, useRef, useState } from 'react'
import { useNavigate, useParams, useSearchParams } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { createSession } from '#app/features/chat/api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'

export const handle = { i18n: ['chat'] }

/** `/chat/new?roleId=…` (Start Chat): creates the session, then opens it in place of this page. */
export default function ChatNew() {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [search] = useSearchParams()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const roleId = search.get('roleId') ?? ''
  const locale = routeLocale(useParams())
  const [error, setError] = useState<string | null>(null)
  const started = useRef(false)

  useEffect(() => {
    if (started.current) return
    started.current = true
    createSession(roleId, locale).then(
      // A chat holding only the greeting is not in My Chats yet (ADR 048); its first reply adds it.
      (session) => navigate(localize(`/chat/${session.id}`), { replace: true }),
      (failure: unknown) => setError(apiErrorMessage(tCommon, failure)),
    )
  }, [roleId, locale, navigate, localize, tCommon])

  return (
    <div className="mx-auto max-w-xl py-16 text-center">
      <PageMeta title={t('metaTitle')} description={t('metaTitle')} />
      <meta name="robots" content="noindex" />
      {error ? (
        <>
          <p role="alert" className="text-red-300">
            {t('errors.sendFailed')}: {error}
          </p>
          <LocalizedLink to="/characters" className="button-secondary mt-6">
            {tCommon('nav.characters')}
          </LocalizedLink>
        </>
      ) : (
        <p role="status" className="text-zinc-300">
          {t('starting')}
        </p>
      )}
    </div>
  )
}
