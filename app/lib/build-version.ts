// Whether a newer build is live (spec section 7). The flag is read on every navigation
// (use-full-reload-on-new-build.ts); the watcher that sets it (build-watcher.ts) is loaded when the
// browser is first idle, so it is not part of any page's first-load JavaScript.
let newerBuildDeployed = false

/** True once the server announced a build other than the one this page runs. */
export function isNewerBuildDeployed(): boolean {
  return newerBuildDeployed
}

export function noteNewerBuild() {
  newerBuildDeployed = true
}

/** Starts watching for new builds (build-watcher.ts) once the browser is idle. */
export function watchForNewBuildsWhenIdle(currentBuildId: string) {
  const start = () => {
    import('./build-watcher.ts').then(
      (watcher) => watcher.watchForNewBuilds(currentBuildId),
      // A chunk that cannot be loaded reloads the page (chunk-reload.ts); offline, the next page load tries again.
      () => {},
    )
  }
  if ('requestIdleCallback' in window) window.requestIdleCallback(start, { timeout: 5000 })
  else setTimeout(start, 2000)
}
