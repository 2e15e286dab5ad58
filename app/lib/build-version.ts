import { isBuildInfo } from '#contracts/build-info.ts'

const POLL_INTERVAL_MS = 5 * 60_000

let newerBuildDeployed = false

/** True once the server announced a build other than the one this page runs. */
export function isNewerBuildDeployed(): boolean {
  return newerBuildDeployed
}

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
    if (newerBuildDeployed) return
    try {
      const latest = await fetchLatestBuild()
      if (latest && latest !== currentBuildId) newerBuildDeployed = true
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
