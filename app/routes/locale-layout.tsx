import { data, Outlet } from 'react-router'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import type { Route } from './+types/locale-layout.ts'

export function loader({ params }: Route.LoaderArgs) {
  // `/en/...` is not a URL of ours (English has no prefix), and neither is `/xx/...`.
  if (params.lang !== undefined && (!isLocale(params.lang) || params.lang === DEFAULT_LOCALE)) {
    throw data(null, { status: 404 })
  }
  return null
}

export default function LocaleLayout() {
  return <Outlet />
}
