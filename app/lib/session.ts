import { useSyncExternalStore } from 'react'

/**
 * The signed-in state kept in the browser (spec section 4): an access token and a refresh token
 * in local storage. Logging out removes both and clears the user info.
 */
const TOKEN_KEY = 'token'
const REFRESH_TOKEN_KEY = 'refreshToken'
const listeners = new Set<() => void>()

const changeListeners = new Set<() => void>()

function notify() {
  for (const listener of listeners) listener()
  for (const listener of changeListeners) listener()
}

/** Called whenever tokens are stored or cleared in this tab. */
export function onTokensChange(listener: () => void): () => void {
  changeListeners.add(listener)
  return () => changeListeners.delete(listener)
}

export function getAccessToken(): string | null {
  if (typeof window === 'undefined') return null
  return window.localStorage.getItem(TOKEN_KEY)
}

export function getRefreshToken(): string | null {
  if (typeof window === 'undefined') return null
  return window.localStorage.getItem(REFRESH_TOKEN_KEY)
}

export function storeTokens(tokens: { token: string; refreshToken: string }) {
  window.localStorage.setItem(TOKEN_KEY, tokens.token)
  window.localStorage.setItem(REFRESH_TOKEN_KEY, tokens.refreshToken)
  notify()
}

export function clearTokens() {
  window.localStorage.removeItem(TOKEN_KEY)
  window.localStorage.removeItem(REFRESH_TOKEN_KEY)
  notify()
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  // Another tab logging in or out changes this one too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === TOKEN_KEY || event.key === null) listener()
  }
  window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('storage', onStorage)
  }
}

/** Whether a token is held. The server renders the logged-out state; the browser corrects it. */
export function useIsLoggedIn(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => getAccessToken() !== null,
    () => false,
  )
}
