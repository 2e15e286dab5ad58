import { useEffect, useSyncExternalStore } from 'react'
import { useLocation, useRevalidator, useRouteLoaderData } from 'react-router'
import { api } from '#app/lib/http.ts'
import { clearTokens, getAccessToken, onTokensChange } from '#app/lib/session.ts'
import type { UserInfo } from '#contracts/accounts.ts'
import { splitLocalePath } from '#contracts/locales.ts'

// Pages after which user info is not fetched (spec section 4).
const SKIPPED = [/^\/$/, /^\/register/, /^\/login/, /^\/verify/, /^\/auth\/callback\/google/, /^\/blog/, /^\/links/]

let current: UserInfo | null = null
let requested = false
const listeners = new Set<() => void>()
const emit = () => {
  for (const listener of listeners) listener()
}

// Logging out (or in) forgets what was loaded; the next eligible navigation fetches again.
onTokensChange(() => {
  current = null
  requested = false
  emit()
})

export function useUserInfo(): UserInfo | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => current,
    () => null,
  )
}

/**
 * Fetches the signed-in user's info once, after the first navigation to a page other than home,
 * the account pages, the blog or links, and only when a token is held. An account that has
 * confirmed its age gets the age cookie on this device too, so adult images load.
 */
export function useUserInfoAfterNavigation() {
  const { pathname } = useLocation()
  const root = useRouteLoaderData('root') as { adultConfirmed?: boolean } | undefined
  const revalidator = useRevalidator()
  useEffect(() => {
    if (requested || !getAccessToken()) return
    if (SKIPPED.some((pattern) => pattern.test(splitLocalePath(pathname).rest))) return
    requested = true
    api<UserInfo>('/userInfo', { method: 'POST' }).then(
      async (info) => {
        current = info
        emit()
        if (info.showAdultContent && !root?.adultConfirmed) {
          await api('/public/age-confirmation', { method: 'POST', body: { confirmed: true } })
          await revalidator.revalidate()
        }
      },
      (error: unknown) => {
        // userInfo is a public call: a 401 does not redirect; the tokens were no good, so forget them.
        if ((error as { code?: number }).code === 401) clearTokens()
        else requested = false
      },
    )
  }, [pathname, root?.adultConfirmed, revalidator])
}
