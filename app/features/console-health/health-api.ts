import { adminApi } from '#app/features/console/admin-api.ts'
import type { HealthDaily, HealthJobs, HealthModels } from '#contracts/admin-health.ts'

/** The health dashboard's calls (`/api/admin/health/...`, ADR 057), through the console's `adminApi`. */
export const getDaily = (signal?: AbortSignal) => adminApi<HealthDaily>('/admin/health/daily', { signal })

export const getJobs = (signal?: AbortSignal) => adminApi<HealthJobs>('/admin/health/jobs', { signal })

export const getModels = (signal?: AbortSignal) => adminApi<HealthModels>('/admin/health/models', { signal })

export const retryJob = (id: number, note: string) =>
  adminApi<{ id: number; kind: string }>('/admin/health/jobs/retry', { method: 'POST', body: { id, note } })
