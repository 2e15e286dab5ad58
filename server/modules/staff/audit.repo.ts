import { and, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { adminAudit } from '#db/schema/staff.ts'
import { users } from '#db/schema/users.ts'

export type AuditFilter = {
  actorId?: string | undefined
  action?: string | undefined
  targetType?: string | undefined
  targetId?: string | undefined
}
export type AuditRecord = {
  id: number
  at: Date
  actorId: string | null
  actorLabel: string
  action: string
  targetType: string
  targetId: string
  note: string
  details: Record<string, unknown> | null
}

/** The admin_audit table (ADR 054): insert and read only; the database refuses anything else. */
export function createAuditRepo(db: Db) {
  const where = (filter: AuditFilter): SQL | undefined =>
    and(
      filter.actorId ? eq(adminAudit.actorId, filter.actorId) : undefined,
      filter.action ? eq(adminAudit.action, filter.action) : undefined,
      filter.targetType ? eq(adminAudit.targetType, filter.targetType) : undefined,
      filter.targetId ? eq(adminAudit.targetId, filter.targetId) : undefined,
    )

  return {
    /**
     * One record, in the caller's transaction. A person's label is their username at the time,
     * read in the same statement; the command line's is `cli` with no actor id.
     */
    async insert(
      tx: Tx | Db,
      entry: {
        actorId: string | null
        action: string
        targetType: string
        targetId: string
        note: string
        details?: Record<string, unknown> | undefined
      },
    ): Promise<void> {
      const label =
        entry.actorId === null
          ? sql`'cli'`
          : sql`coalesce((select ${users.username} from ${users} where ${users.id} = ${entry.actorId}), ${entry.actorId})`
      await tx.insert(adminAudit).values({
        actorId: entry.actorId,
        actorLabel: label,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        note: entry.note,
        details: entry.details ?? null,
      })
    },

    async page(filter: AuditFilter, page: number, pageSize: number): Promise<{ items: AuditRecord[]; total: number }> {
      const condition = where(filter)
      const [items, [count]] = await Promise.all([
        db
          .select()
          .from(adminAudit)
          .where(condition)
          .orderBy(desc(adminAudit.at), desc(adminAudit.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: sql<number>`count(*)::int` }).from(adminAudit).where(condition),
      ])
      return { items, total: count?.n ?? 0 }
    },

    /** Newest first, at most `limit` records (the export). */
    async all(filter: AuditFilter, limit: number): Promise<AuditRecord[]> {
      return db
        .select()
        .from(adminAudit)
        .where(where(filter))
        .orderBy(desc(adminAudit.at), desc(adminAudit.id))
        .limit(limit)
    },
  }
}

export type AuditRepo = ReturnType<typeof createAuditRepo>
