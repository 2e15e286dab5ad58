import { useEffect, useRef } from 'react'
import { useLocation } from 'react-router'
import { isNewerBuildDeployed } from '#app/lib/build-version.ts'

/** After a new build is deployed, the next navigation loads the page afresh from the server. */
export function useFullReloadOnNewBuild() {
  const location = useLocation()
  const first = useRef(true)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation (location.key).
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    if (isNewerBuildDeployed()) window.location.reload()
  }, [location.key])
}
