import { useEffect } from 'react'
import { useLocation } from 'react-router'
import { isNewerBuildDeployed } from '#app/lib/build-version.ts'

// Module state, not a ref: the root Layout remounts when the page switches to or from an error
// boundary, and a navigation must still be recognised as one.
let lastLocationKey: string | undefined

/** After a new build is deployed, the next navigation loads the page afresh from the server. */
export function useFullReloadOnNewBuild() {
  const { key } = useLocation()
  useEffect(() => {
    if (lastLocationKey === undefined || key === lastLocationKey) {
      lastLocationKey = key
      return
    }
    lastLocationKey = key
    if (isNewerBuildDeployed()) window.location.reload()
  }, [key])
}
