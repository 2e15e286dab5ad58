import { isRouteErrorResponse, useLocation } from 'react-router'
import { ErrorPage } from '#app/components/error-page.tsx'
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

/**
 * The one error boundary of the app. The root exports it (wrapped in the shell) for every route;
 * list pages word a failed load themselves (ListErrorBoundary), so that the rest of the page stays
 * usable. Kept apart from that one, which needs the API error words: this one is part of every
 * page's first load.
 */
export function RouteErrorBoundary({ error }: { error: unknown }) {
  const { pathname } = useLocation()
  const failure = routeFailure(error, typeof navigator === 'undefined' || navigator.onLine)
  if (failure.kind === 'not-found') return <ErrorPage kind="not-found" path={pathname} />
  console.error(error)
  return <ErrorPage kind="server" path={pathname} />
}
