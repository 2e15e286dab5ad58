import { useEffect, useSyncExternalStore } from 'react'
import { api } from '#app/lib/http.ts'
import { getAccessToken, onTokensChange, useIsLoggedIn } from '#app/lib/session.ts'

/**
 * The signed-in user's diamonds (spec section 4): fetched when logged in, zero when logged out,
 * fetched again on login. Pages that change the balance (a purchase, a premium message) call
 * `refreshPoints()` or `setPoints()` so the top bar and the chat agree.
 */
let points: number | null = null
let inFlight: Promise<void> | null = null
let failed = false
const listeners = new Set<() => void>()
const emit = () => {
  for (const listener of listeners) listener()
}

onTokensChange(() => {
  points = null
  failed = false
  emit()
})

export function setPoints(value: number) {
  points = value
  emit()
}

export function refreshPoints(): Promise<void> {
  if (!getAccessToken()) return Promise.resolve()
  inFlight ??= api<{ totalPoints: number }>('/points')
    .then(
      (data) => {
        failed = false
        setPoints(data.totalPoints)
      },
      () => {
        failed = true
        emit()
      },
    )
    .finally(() => {
      inFlight = null
    })
  return inFlight
}

/** The balance (null until known; 0 when logged out) and whether the last fetch failed. */
export function usePoints(): { points: number | null; failed: boolean } {
  const loggedIn = useIsLoggedIn()
  const value = useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => points,
    () => null,
  )
  useEffect(() => {
    if (loggedIn && points === null && !failed) void refreshPoints()
  }, [loggedIn])
  return { points: loggedIn ? value : 0, failed: loggedIn && failed }
}
