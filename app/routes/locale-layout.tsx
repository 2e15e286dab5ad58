import { data, Outlet, type ShouldRevalidateFunctionArgs } from 'react-router'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import type { Route } from './+types/locale-layout.ts'

export function loader({ params }: Route.LoaderArgs) {
  // `/en/...` is not a URL of ours (English has no prefix), and neither is `/xx/...`.
  if (params.lang !== undefined && (!isLocale(params.lang) || params.lang === DEFAULT_LOCALE)) {
    throw data(null, { status: 404 })
  }
  return null
}

/** The prefix check only needs repeating when the prefix changes. */
export function shouldRevalidate({ currentParams, nextParams }: ShouldRevalidateFunctionArgs) {
  return currentParams.lang !== nextParams.lang
}

export default function LocaleLayout() {
  return <Outlet />
}
