import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { adminApi } from '#app/features/console/admin-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import type { HealthDaily, HealthJobs, HealthModels } from '#contracts/admin-health.ts'

/** The health dashboard's calls (`/api/admin/health/...`, ADR 057), through the console's `adminApi`. */
export const getDaily = (signal?: AbortSignal) => adminApi<HealthDaily>('/admin/health/daily', { signal })

export const getJobs = (signal?: AbortSignal) => adminApi<HealthJobs>('/admin/health/jobs', { signal })

export const getModels = (signal?: AbortSignal) => adminApi<HealthModels>('/admin/health/models', { signal })

export const retryJob = (id: number, note: string) =>
  adminApi<{ id: number; kind: string }>('/admin/health/jobs/retry', { method: 'POST', body: { id, note } })

/** One part of the dashboard: its data once loaded, the problem in words, and a way to load it again. */
export function useHealthData<T>(load: (signal: AbortSignal) => Promise<T>) {
  const { t: tc } = useTranslation()
  const [data, setData] = useState<T | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` reloads; `load` is a module function
  const run = useCallback(
    async (signal: AbortSignal) => {
      setProblem(null)
      try {
        setData(await load(signal))
      } catch (error) {
        if (!signal.aborted) setProblem(apiErrorMessage(tc, error))
      }
    },
    [round, tc],
  )
  useEffect(() => {
    const controller = new AbortController()
    void run(controller.signal)
    return () => controller.abort()
  }, [run])
  return { data, problem, reload: () => setRound((n) => n + 1) }
}
