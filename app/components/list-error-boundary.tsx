import { RotateCw } from 'lucide-react'
import { useLocation, useRevalidator } from 'react-router'
import { ErrorPage } from '#app/components/error-page.tsx'
import { routeFailure } from '#app/components/route-error-boundary.tsx'
import { errorCodeMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ErrorCode } from '#contracts/api.ts'

type Props = {
  error: unknown
  /** The list's namespace: a failed load shows 'Load Failed: {reason}' with Retry in its words. */
  retryIn: 'catalogue' | 'blog'
}

/**
 * The error boundary of a list page (the catalogue, the blog): a 404 is the not-found page; a failed
 * load shows 'Load Failed: {reason}' with Retry in place of the list, so the rest of the page stays
 * usable.
 */
export function ListErrorBoundary({ error, retryIn }: Props) {
  const { pathname } = useLocation()
  const failure = routeFailure(error, typeof navigator === 'undefined' || navigator.onLine)
  if (failure.kind === 'not-found') return <ErrorPage kind="not-found" path={pathname} />
  return <LoadFailed namespace={retryIn} code={failure.code} />
}

/** 'Load Failed: {reason}' with Retry (spec section 3), when a list could not be loaded. */
function LoadFailed({ namespace, code }: { namespace: 'catalogue' | 'blog'; code: ErrorCode }) {
  const { t } = useTranslation(namespace)
  const { t: tCommon } = useTranslation()
  const revalidator = useRevalidator()
  return (
    <div
      role="alert"
      className="mx-auto mt-10 max-w-lg rounded-2xl border border-rose-900 bg-rose-950/40 p-6 text-center"
    >
      <p className="font-semibold">{t('list.loadFailed', { reason: errorCodeMessage(tCommon, code, undefined) })}</p>
      <button
        type="button"
        className="button-primary mt-4"
        onClick={() => revalidator.revalidate()}
        disabled={revalidator.state === 'loading'}
      >
        <RotateCw aria-hidden="true" className="size-4" />
        {t('list.retry')}
      </button>
    </div>
  )
}
