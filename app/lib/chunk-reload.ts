const GUARD_MS = 10_000
const KEY_PREFIX = 'chunk-reload:'

/**
 * When a code chunk fails to load (usually: a deploy removed it), reload the page to get the new
 * build, at most once per path within 10 seconds so a real outage does not loop (spec section 8).
 */
export function reloadOnceOnChunkError() {
  window.addEventListener('vite:preloadError', (event) => {
    if (mayReload(window.location.pathname, Date.now(), window.sessionStorage)) {
      event.preventDefault()
      window.location.reload()
    }
  })
}

/** True (and remembered) when `path` has not been reloaded for a chunk error in the last 10 s. */
export function mayReload(path: string, now: number, storage: Pick<Storage, 'getItem' | 'setItem'>): boolean {
  const key = KEY_PREFIX + path
  const last = storage.getItem(key)
  if (last !== null && now - Number(last) < GUARD_MS) return false
  storage.setItem(key, String(now))
  return true
}
