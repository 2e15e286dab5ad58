import { adminApi } from '#app/features/console/admin-api.ts'
import type { CharacterAction, QueuePage, ReportedCharacter, ReportHandling } from '#contracts/admin-moderation.ts'
import type { Locale } from '#contracts/locales.ts'

/** The moderation console's calls (`/api/admin/moderation/...`, ADR 058), through the console's `adminApi`. */
const base = '/admin/moderation'
const characterPath = (id: string) => `${base}/characters/${encodeURIComponent(id)}`

export const QUEUE_PAGE_SIZE = 25

export const listQueue = (page: number, signal?: AbortSignal) =>
  adminApi<QueuePage>(`${base}/reports?page=${page}&pageSize=${QUEUE_PAGE_SIZE}`, { signal })

export const getReportedCharacter = (id: string, locale: Locale, signal?: AbortSignal) =>
  adminApi<ReportedCharacter>(`${characterPath(id)}?locale=${locale}`, { signal })

export const handleReports = (id: string, action: ReportHandling, note: string) =>
  adminApi<{ closed: number }>(`${characterPath(id)}/reports`, { method: 'POST', body: { action, note } })

/** Admins only; the server asks for a fresh code first when the last is old. */
export const suspendCreator = (id: string, note: string) =>
  adminApi<{ closed: number }>(`${characterPath(id)}/reports/suspend-creator`, { method: 'POST', body: { note } })

export const actOnCharacter = (id: string, action: CharacterAction, note: string) =>
  adminApi<{ changed: boolean }>(`${characterPath(id)}/actions`, { method: 'POST', body: { action, note } })
