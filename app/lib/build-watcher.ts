import { isNewerBuildDeployed, noteNewerBuild } from '#app/lib/build-version.ts'
import { isBuildInfo } from '#contracts/build-info.ts'

// Loaded once the page is idle (build-version.ts), not with it: nothing here is needed before.

const POLL_INTERVAL_MS = 5 * 60_000

async function fetchLatestBuild(): Promise<string | null> {
  const response = await fetch(`/builds/latest.json?t=${Date.now()}`, { cache: 'no-store' })
  if (!response.ok) return null
  const info: unknown = await response.json()
  return isBuildInfo(info) ? info.id : null
}

/**
 * Polls `builds/latest.json` (and checks again when the tab becomes visible). When another build
 * is live, the next navigation becomes a full page load (see `useFullReloadOnNewBuild`).
 * About a second after the page goes idle it also fetches this build's metadata, except on
 * slow-2g connections; failures there are only logged (spec section 8).
 */
export function watchForNewBuilds(currentBuildId: string) {
  const check = async () => {
    if (isNewerBuildDeployed()) return
    try {
      const latest = await fetchLatestBuild()
      if (latest && latest !== currentBuildId) noteNewerBuild()
    } catch {
      // Offline or deploying: try again at the next tick.
    }
  }
  setInterval(check, POLL_INTERVAL_MS)
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void check()
  })

  const connection = (navigator as Navigator & { connection?: { effectiveType?: string } }).connection
  if (connection?.effectiveType === 'slow-2g') return
  const prefetchMeta = () =>
    setTimeout(() => {
      fetch(`/builds/meta/${currentBuildId}.json`).catch((error: unknown) => {
        console.warn('build metadata could not be loaded', error)
      })
    }, 1000)
  if ('requestIdleCallback' in window) window.requestIdleCallback(prefetchMeta)
  else prefetchMeta()
}
