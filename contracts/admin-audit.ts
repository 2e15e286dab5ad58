// A type-only import, erased from the build: the client never loads the database (issue 23's
// shared shape names the repos' transaction type).
// biome-ignore lint/style/noRestrictedImports: type only, so contracts/ stays isomorphic at run time
import type { Tx } from '#db/client.ts'

/** One console action as the audit log records it (ADR 054). */
export type AuditEntry = {
  actorId: string
  action: string
  targetType: 'user' | 'character' | 'report' | 'order' | 'subscription' | 'tag' | 'job' | 'staff'
  targetId: string
  note: string
  details?: Record<string, unknown>
}

/** Writes an audit record inside the transaction that makes the change: both commit together. */
export type Audit = (tx: Tx, entry: AuditEntry) => Promise<void>
