/**
 * The console token (ADR 054): what `POST /api/admin/2fa/verify` or `enable` returned, sent as
 * `X-Console-Token` beside the bearer token. Kept per tab in session storage: closing the tab
 * forgets it, another tab unlocks on its own, and a reload of the same tab keeps it.
 * The one place that holds it; `admin-api.ts` reads it for every console call.
 */
const KEY = 'taleweave:console-token'
const listeners = new Set<() => void>()

function storage(): Storage | null {
  if (typeof window === 'undefined') return null
  try {
    return window.sessionStorage
  } catch {
    return null
  }
}

export function getConsoleToken(): string | null {
  return storage()?.getItem(KEY) ?? null
}

export function storeConsoleToken(token: string) {
  storage()?.setItem(KEY, token)
  for (const listener of listeners) listener()
}

export function clearConsoleToken() {
  storage()?.removeItem(KEY)
  for (const listener of listeners) listener()
}

/** Called whenever the token is stored or cleared in this tab. */
export function onConsoleTokenChange(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
