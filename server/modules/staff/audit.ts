import type { Audit } from '#contracts/admin-audit.ts'
import type { AuditFilter, AuditRecord, AuditRepo } from './audit.repo.ts'

/** The actor id the command line writes with: stored as no actor, labelled `cli`. */
export const CLI_ACTOR = 'cli'
/** The export's length limit: a filter narrows a larger log. */
export const AUDIT_EXPORT_MAX_ROWS = 50_000

/** The `Audit` every console action calls inside its own transaction (contracts/admin-audit.ts). */
export function createAudit(repo: AuditRepo): Audit {
  return async (tx, entry) => {
    await repo.insert(tx, { ...entry, actorId: entry.actorId === CLI_ACTOR ? null : entry.actorId })
  }
}

export function createAuditLog(repo: AuditRepo) {
  return {
    page: (filter: AuditFilter, page: number, pageSize: number) => repo.page(filter, page, pageSize),
    async csv(filter: AuditFilter): Promise<string> {
      return auditCsv(await repo.all(filter, AUDIT_EXPORT_MAX_ROWS))
    },
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>

const CSV_COLUMNS = ['at', 'actor_id', 'actor', 'action', 'target_type', 'target_id', 'note', 'details'] as const

/** The records as CSV (RFC 4180, CRLF lines), every field quoted and safe to open in a spreadsheet. */
export function auditCsv(records: AuditRecord[]): string {
  const lines = [CSV_COLUMNS.join(',')]
  for (const r of records) {
    lines.push(
      [
        r.at.toISOString(),
        r.actorId ?? '',
        r.actorLabel,
        r.action,
        r.targetType,
        r.targetId,
        r.note,
        r.details ? JSON.stringify(r.details) : '',
      ]
        .map(csvField)
        .join(','),
    )
  }
  return `${lines.join('\r\n')}\r\n`
}

/**
 * One field: quotes doubled and the whole quoted. A value a spreadsheet would run as a formula
 * (starting with =, +, -, @, a tab or a carriage return) gets a leading apostrophe (OWASP CSV injection).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return `"${safe.replaceAll('"', '""')}"`
}
