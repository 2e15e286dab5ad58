import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'

/**
 * Data of a console page (or one part of it), loaded again when `key` (what `load` reads) changes
 * or on `reload()`; a failure in the user's words. The data stays while it reloads, so a page does
 * not flicker. The one loader of every console page (moderation, money lists, health).
 */
export function useAdminData<T>(load: (signal: AbortSignal) => Promise<T>, key = '') {
  const { t: tc } = useTranslation()
  const [data, setData] = useState<T | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for what `load` reads; `round` reloads
  const run = useCallback(
    async (signal: AbortSignal) => {
      setProblem(null)
      try {
        setData(await load(signal))
      } catch (error) {
        if (!signal.aborted) setProblem(apiErrorMessage(tc, error))
      }
    },
    [key, round, tc],
  )
  useEffect(() => {
    const controller = new AbortController()
    void run(controller.signal)
    return () => controller.abort()
  }, [run])
  return { data, problem, reload: useCallback(() => setRound((n) => n + 1), []) }
}
