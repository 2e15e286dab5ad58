import { api } from '#app/lib/http.ts'
import type { ReportReason } from '#contracts/characters.ts'

/** `POST /api/roles/:id/report`: anyone may report a character they can see. */
export function reportRole(roleId: string, report: { reason: ReportReason; text: string }) {
  return api<{ reported: true }>(`/roles/${encodeURIComponent(roleId)}/report`, { method: 'POST', body: report })
}
