import type { ReportOutcome, ReportReason } from '#contracts/characters.ts'
import { AppError } from '#server/lib/errors.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import { type Actor, type CharacterActions, requireNote } from './character-actions.ts'
import type { ModerationDeps } from './moderation.service.ts'
import type { People } from './people.ts'

const QUEUE_LIMIT = 100
const MY_REPORTS_LIMIT = 100

export const REPORT_ACTIONS = ['dismiss', 'hide', 'mark_adult', 'warn', 'suspend'] as const
export type ReportAction = (typeof REPORT_ACTIONS)[number]
const OUTCOME: Record<ReportAction, ReportOutcome> = {
  dismiss: 'dismissed',
  hide: 'hidden',
  mark_adult: 'marked_adult',
  warn: 'warned',
  suspend: 'suspended',
}

/**
 * The reports queue (ADR 055): open reports grouped by character, and the actions that close all
 * of a character's open reports with one outcome, in the transaction of the action and its audit.
 */
export function createReportsQueue(
  deps: Pick<ModerationDeps, 'db' | 'audit' | 'reports' | 'catalogue' | 'hides'> & {
    characters: CharacterActions
    people: People
    /** The creators' usernames (absent: the account is gone). */
    usernames: (userIds: string[]) => Promise<Map<string, string>>
  },
) {
  const { db, audit, reports, catalogue, hides, characters, people, usernames } = deps

  return {
    /** The queue, most reported first: `limit` characters after the first `offset`. */
    async reportsQueue({ offset = 0, limit = QUEUE_LIMIT }: { offset?: number; limit?: number } = {}) {
      const groups = await reports.openGroups(limit, offset)
      const ids = groups.map((g) => g.roleId)
      const [roleRows, reasonRows, hidden] = await Promise.all([
        reports.rolesByIds(ids),
        reports.openReasons(ids),
        hides.hiddenAmong(ids),
      ])
      const roleOf = new Map(roleRows.map((r) => [r.id, r]))
      const names = await usernames([...new Set(roleRows.flatMap((r) => (r.creatorId ? [r.creatorId] : [])))])
      return groups.flatMap((group) => {
        const role = roleOf.get(group.roleId)
        if (!role) return []
        const counts = new Map<ReportReason, number>()
        const texts: string[] = []
        for (const row of reasonRows) {
          if (row.roleId !== group.roleId) continue
          counts.set(row.reason, (counts.get(row.reason) ?? 0) + 1)
          if (row.text) texts.push(row.text)
        }
        return [
          {
            character: {
              id: role.publicId,
              name: role.name,
              introduction: role.introduction,
              avatarUrl: imageUrl(role.avatarImageId),
              isAdult: role.isAdult,
              visibility: role.visibility,
              creatorId: role.creatorId,
              creatorName: role.creatorId ? (names.get(role.creatorId) ?? null) : null,
              hidden: hidden.has(role.id),
            },
            reasons: [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
            texts,
            reports: group.reports,
            reporters: group.reporters + group.anonymous,
            firstReportedAt: group.firstReportedAt.toISOString(),
            lastReportedAt: group.lastReportedAt.toISOString(),
          },
        ]
      })
    },

    /** How many characters have open reports (every page of the queue). */
    reportsQueueTotal: () => reports.countOpenGroups(),

    /**
     * Handles a character's open reports: the action, then every open report closed with its
     * outcome and the note, and the audit records, in one transaction. Warn and suspend act on the
     * character's creator (refused when it has none any more).
     */
    async handleReports(publicId: string, action: ReportAction, actor: Actor): Promise<{ closed: number }> {
      const note = requireNote(actor.note)
      if (!(REPORT_ACTIONS as readonly string[]).includes(action)) {
        throw AppError.badRequest('Unknown action.', { fields: [{ path: 'action', code: 'invalid' }] })
      }
      const role = await characters.roleOf(publicId)
      const creatorId = role.creatorId
      if ((action === 'warn' || action === 'suspend') && !creatorId) {
        throw AppError.conflict('The character has no creator any more.', { reason: 'no-creator' })
      }
      const by = { actorId: actor.actorId, note }
      const outcome = OUTCOME[action]
      const closed = await db.transaction(async (tx) => {
        const details = { fromReports: true }
        if (action === 'hide') await characters.hideIn(tx, role, by, details)
        if (action === 'mark_adult') await characters.setAdultIn(tx, role, true, by, details)
        if (action === 'warn' && creatorId) await people.warnIn(tx, creatorId, role.id, by, { character: publicId })
        if (action === 'suspend' && creatorId) await people.suspendIn(tx, creatorId, by, { character: publicId })
        const ids = await reports.closeOpen(tx, role.id, { outcome, note, actorId: actor.actorId })
        for (const id of ids) {
          await audit(tx, {
            actorId: actor.actorId,
            action: 'report.close',
            targetType: 'report',
            targetId: String(id),
            note,
            details: { outcome, character: publicId },
          })
        }
        return ids.length
      })
      if (action === 'suspend' && creatorId) await people.endLogins(creatorId)
      if (action === 'warn') people.kickMail()
      if (action === 'hide' || action === 'mark_adult') await catalogue.invalidateListings()
      return { closed }
    },

    /** The reports the user made and how each ended (the operator's note stays private). */
    async myReports(userId: string) {
      const rows = await reports.madeBy(userId, MY_REPORTS_LIMIT)
      return rows.map((row) => ({
        id: row.id,
        characterId: row.characterId,
        characterName: row.characterName,
        reason: row.reason,
        outcome: row.outcome ?? null,
        reportedAt: row.createdAt.toISOString(),
        handledAt: row.handledAt?.toISOString() ?? null,
      }))
    },
  }
}
