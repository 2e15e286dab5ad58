import { useState } from 'react'
import { notify } from '#app/lib/notify.tsx'

/** A download in one of several formats: which one is under way (one at a time), and `failed` said when it fails. */
export function useDownload<F extends string>(download: (format: F) => Promise<void>, failed: string) {
  const [busy, setBusy] = useState<F | null>(null)
  const start = async (format: F) => {
    setBusy(format)
    try {
      await download(format)
    } catch {
      notify(failed, { type: 'error' })
    } finally {
      setBusy(null)
    }
  }
  return { busy, download: start }
}
