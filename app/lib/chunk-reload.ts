const GUARD_MS = 10_000
const KEY_PREFIX = 'chunk-reload:'

/**
 * When a code chunk fails to load (usually: a deploy removed it), reload the page to get the new
 * build, at most once per path within 10 seconds so a real outage does not loop (spec section 8).
 */
export function reloadOnceOnChunkError() {
  window.addEventListener('vite:preloadError', (event) => {
    if (reloadIfAllowed(window.location.pathname)) event.preventDefault()
  })
}

export function reloadIfAllowed(path: string, now = Date.now(), storage: Storage = window.sessionStorage): boolean {
  const key = KEY_PREFIX + path
  const last = Number(storage.getItem(key) ?? 0)
  if (now - last < GUARD_MS) return false
  storage.setItem(key, String(now))
  window.location.reload()
  return true
}
