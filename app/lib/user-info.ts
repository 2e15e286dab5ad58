import { useEffect, useSyncExternalStore } from 'react'
import { useLocation, useRevalidator, useRouteLoaderData } from 'react-router'
import { getAccessToken, onTokensChange } from '#app/lib/session.ts'
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
 * The signed-in user's info; null when the login is over. An expired access token is refreshed
 * like on every other call (a 401 here once dropped a login that was still good); when refreshing
 * fails too, the tokens are forgotten without leaving the page (user info is asked for on pages
 * that signed-out visitors see too). Other failures throw.
 */
export async function loadUserInfo(): Promise<UserInfo | null> {
  // The API client is not part of the first load (see signed-in-lazy.tsx): only a signed-in page asks.
  const { api } = await import('#app/lib/http.ts')
  try {
    return await api<UserInfo>('/userInfo', { method: 'POST', auth: 'optional' })
  } catch (error) {
    if ((error as { code?: number }).code === 401) return null
    throw error
  }
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
    loadUserInfo().then(
      async (info) => {
        if (!info) return
        // (A refresh on the way stored new tokens, which reset these: this answer is still theirs.)
        current = info
        requested = true
        emit()
        if (info.showAdultContent && !root?.adultConfirmed) {
          const { api } = await import('#app/lib/http.ts')
          await api('/public/age-confirmation', { method: 'POST', body: { confirmed: true } })
          await revalidator.revalidate()
        }
      },
      () => {
        requested = false
      },
    )
  }, [pathname, root?.adultConfirmed, revalidator])
}
