import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm'
import type { ReportOutcome } from '#contracts/characters.ts'
import type { Db, Tx } from '#db/client.ts'
import { roleReports } from '#db/schema/reports.ts'
import { roles } from '#db/schema/roles.ts'

/**
 * The reports queue (ADR 055): reads open reports grouped by character and closes them with an
 * outcome. The characters module writes new reports; this repo only closes them.
 */
export function createReportsQueueRepo(db: Db) {
  return {
    /** Characters with open reports, the most reported first, then the oldest report first. */
    async openGroups(limit: number, offset = 0) {
      return db
        .select({
          roleId: roleReports.roleId,
          reports: sql<number>`count(*)::int`,
          reporters: sql<number>`count(distinct ${roleReports.reporterId})::int`,
          anonymous: sql<number>`(count(*) filter (where ${roleReports.reporterId} is null))::int`,
          firstReportedAt: sql<Date>`min(${roleReports.createdAt})`.mapWith((v: string | Date) => new Date(v)),
          lastReportedAt: sql<Date>`max(${roleReports.createdAt})`.mapWith((v: string | Date) => new Date(v)),
        })
        .from(roleReports)
        .where(eq(roleReports.status, 'open'))
        .groupBy(roleReports.roleId)
        .orderBy(desc(sql`count(*)`), asc(sql`min(${roleReports.createdAt})`), asc(roleReports.roleId))
        .limit(limit)
        .offset(offset)
    },

    /** How many characters have open reports. */
    async countOpenGroups() {
      const [row] = await db
        .select({ total: sql<number>`count(distinct ${roleReports.roleId})::int` })
        .from(roleReports)
        .where(eq(roleReports.status, 'open'))
      return row?.total ?? 0
    },

    /** Every report of one character: the open ones oldest first, then the closed ones newest first. */
    async ofRole(roleId: number, closedLimit: number) {
      const columns = {
        id: roleReports.id,
        reason: roleReports.reason,
        text: roleReports.text,
        reporterId: roleReports.reporterId,
        outcome: roleReports.outcome,
        createdAt: roleReports.createdAt,
        handledAt: roleReports.handledAt,
      }
      const [open, closed] = await Promise.all([
        db
          .select(columns)
          .from(roleReports)
          .where(and(eq(roleReports.roleId, roleId), eq(roleReports.status, 'open')))
          .orderBy(asc(roleReports.id)),
        db
          .select(columns)
          .from(roleReports)
          .where(and(eq(roleReports.roleId, roleId), ne(roleReports.status, 'open')))
          .orderBy(desc(roleReports.id))
          .limit(closedLimit),
      ])
      return { open, closed }
    },

    /** The reasons of the open reports of these characters, with their counts, and their texts. */
    async openReasons(roleIds: number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({ roleId: roleReports.roleId, reason: roleReports.reason, text: roleReports.text })
        .from(roleReports)
        .where(and(eq(roleReports.status, 'open'), inArray(roleReports.roleId, roleIds)))
        .orderBy(asc(roleReports.id))
    },

    async rolesByIds(roleIds: number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({
          id: roles.id,
          publicId: roles.publicId,
          name: roles.name,
          introduction: roles.introduction,
          visibility: roles.visibility,
          isAdult: roles.isAdult,
          creatorId: roles.creatorId,
          avatarImageId: roles.avatarImageId,
        })
        .from(roles)
        .where(inArray(roles.id, roleIds))
    },

    /** Closes every open report of the character with one outcome; returns their ids. */
    async closeOpen(tx: Tx, roleId: number, values: { outcome: ReportOutcome; note: string; actorId: string }) {
      const closed = await tx
        .update(roleReports)
        .set({
          status: values.outcome === 'dismissed' ? 'dismissed' : 'resolved',
          outcome: values.outcome,
          outcomeNote: values.note,
          handledBy: values.actorId,
          handledAt: new Date(),
        })
        .where(and(eq(roleReports.roleId, roleId), eq(roleReports.status, 'open')))
        .returning({ id: roleReports.id })
      return closed.map((row) => row.id)
    },

    /** The reports a user made, newest first, with how each was closed (not the operator's note). */
    async madeBy(userId: string, limit: number) {
      return db
        .select({
          id: roleReports.id,
          characterId: roles.publicId,
          characterName: roles.name,
          reason: roleReports.reason,
          status: roleReports.status,
          outcome: roleReports.outcome,
          createdAt: roleReports.createdAt,
          handledAt: roleReports.handledAt,
        })
        .from(roleReports)
        .innerJoin(roles, eq(roles.id, roleReports.roleId))
        .where(eq(roleReports.reporterId, userId))
        .orderBy(desc(roleReports.id))
        .limit(limit)
    },

    /** Reports of the user's characters, newest first (for the person's detail). */
    async aboutCreator(creatorId: string, limit: number) {
      return db
        .select({
          id: roleReports.id,
          characterId: roles.publicId,
          reason: roleReports.reason,
          text: roleReports.text,
          status: roleReports.status,
          outcome: roleReports.outcome,
          createdAt: roleReports.createdAt,
        })
        .from(roleReports)
        .innerJoin(roles, eq(roles.id, roleReports.roleId))
        .where(eq(roles.creatorId, creatorId))
        .orderBy(desc(roleReports.id))
        .limit(limit)
    },
  }
}

export type ReportsQueueRepo = ReturnType<typeof createReportsQueueRepo>
