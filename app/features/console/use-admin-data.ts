import { useCallback, useEffect, useRef, useState } from 'react'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/**
 * Data of a console page (or one part of it), loaded again when `key` (what `load` reads) changes
 * or on `reload()`; a failure in the user's words. The data stays while it reloads, so a page does
 * not flicker. The one loader of every console page (moderation, money lists, health).
 * `reload()` resolves once the new data (or the failure) is shown, so a page can say "done" over
 * the state as it now is.
 */
export function useAdminData<T>(load: (signal: AbortSignal) => Promise<T>, key = '') {
  const { t: tc } = useTranslation()
  const [data, setData] = useState<T | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  const waiting = useRef<(() => void)[]>([])
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for what `load` reads; `round` reloads
  const run = useCallback(
    async (signal: AbortSignal) => {
      setProblem(null)
      try {
        setData(await load(signal))
      } catch (error) {
        if (!signal.aborted) setProblem(apiErrorMessage(tc, error))
      }
      if (signal.aborted) return
      for (const done of waiting.current.splice(0)) done()
    },
    [key, round, tc],
  )
  useEffect(() => {
    const controller = new AbortController()
    void run(controller.signal)
    return () => controller.abort()
  }, [run])
  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve)
        setRound((n) => n + 1)
      }),
    [],
  )
  return { data, problem, reload }
}
