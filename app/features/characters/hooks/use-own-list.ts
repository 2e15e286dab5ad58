import { useCallback, useEffect, useState } from 'react'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export type OwnList<T> = { kind: 'loading' } | { kind: 'failed'; reason: string } | { kind: 'ready'; items: T[] }

/**
 * A list of the signed-in user's own things (characters, lorebooks), fetched on mount and again
 * whenever `fetchItems` changes (memoize it); `reload` is the Retry, `change` edits the loaded list.
 */
export function useOwnList<T>(fetchItems: (signal?: AbortSignal) => Promise<T[]>) {
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<OwnList<T>>({ kind: 'loading' })
  const reload = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      fetchItems(signal).then(
        (items) => setLoad({ kind: 'ready', items }),
        (error: unknown) => {
          if (!signal?.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [fetchItems, tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    reload(controller.signal)
    return () => controller.abort()
  }, [reload])
  const change = useCallback(
    (edit: (items: T[]) => T[]) =>
      setLoad((current) => (current.kind === 'ready' ? { kind: 'ready', items: edit(current.items) } : current)),
    [],
  )
  return { load, reload, change }
}
