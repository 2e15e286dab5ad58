import { RotateCw } from 'lucide-react'
import { isRouteErrorResponse, useLocation, useRevalidator } from 'react-router'
import { ErrorPage } from '#app/components/error-page.tsx'
import { errorCodeMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ErrorCode } from '#contracts/api.ts'

/** What a failed route means for the person: nothing there, or a load that failed and why. */
export type RouteFailure = { kind: 'not-found' } | { kind: 'load-failed'; code: ErrorCode }

/**
 * Reads a route's error: a 404 is "not found"; anything else is a failed load, worded by its
 * cause (no connection, the server busy, or the server failing).
 */
export function routeFailure(error: unknown, online: boolean): RouteFailure {
  if (isRouteErrorResponse(error) && error.status === 404) return { kind: 'not-found' }
  // A fetch that never reached the server (the client navigation's data request) is a TypeError.
  if (error instanceof TypeError || !online) return { kind: 'load-failed', code: 'NETWORK_ERROR' }
  if (isRouteErrorResponse(error) && error.status === 503) return { kind: 'load-failed', code: 'SERVICE_UNAVAILABLE' }
  return { kind: 'load-failed', code: 'INTERNAL_ERROR' }
}

type Props = {
  error: unknown
  /**
   * A list page (the catalogue, the blog): a failed load shows 'Load Failed: {reason}' with Retry in
   * place of the list, in the page's namespace. Other pages show the 500 page.
   */
  retryIn?: 'catalogue' | 'blog'
}

/**
 * The one error boundary of the app. The root exports it (wrapped in the shell) for every route;
 * list pages export it with `retryIn` so that the rest of the page stays usable.
 */
export function RouteErrorBoundary({ error, retryIn }: Props) {
  const { pathname } = useLocation()
  const failure = routeFailure(error, typeof navigator === 'undefined' || navigator.onLine)
  if (failure.kind === 'not-found') return <ErrorPage kind="not-found" path={pathname} />
  if (retryIn) return <LoadFailed namespace={retryIn} code={failure.code} />
  console.error(error)
  return <ErrorPage kind="server" path={pathname} />
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
