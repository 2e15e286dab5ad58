import { DEFAULT_LOCALE, type Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ModerationDeps } from './moderation.service.ts'

const CLOSED_LIMIT = 50
/** The console reads any character, private or hidden, with nothing withheld for age. */
const OPERATOR = { userId: null, adultConfirmed: true }

/**
 * One character as the moderation console shows it (ADR 058): its page's texts in its own language
 * (name, introduction, greeting, tags in the console's language, picture), why it is hidden, its
 * creator, its open reports and those already handled. Reporters are account ids only, never an
 * address. Any character id works, reported or not, so a moderator can act on one typed in.
 */
export function createReportedCharacter(
  deps: Pick<ModerationDeps, 'reports' | 'hides' | 'catalogue'> & {
    usernames: (userIds: string[]) => Promise<Map<string, string>>
  },
) {
  const { reports, hides, catalogue, usernames } = deps

  return {
    async reportedCharacter(publicId: string, locale: Locale = DEFAULT_LOCALE) {
      const found = await hides.findRole(publicId)
      if (!found) throw AppError.notFound('No such character')
      const [role, causes, { open, closed }, names] = await Promise.all([
        catalogue.getRole(publicId, OPERATOR, locale, { original: true, operator: true }),
        hides.causesOf(found.id),
        reports.ofRole(found.id, CLOSED_LIMIT),
        usernames(found.creatorId ? [found.creatorId] : []),
      ])
      if (!role) throw AppError.notFound('No such character')
      const creatorName = found.creatorId ? names.get(found.creatorId) : undefined
      return {
        character: {
          id: role.roleId,
          name: role.name,
          introduction: role.introduction,
          greeting: role.firstMessage,
          avatarUrl: role.avatarUrl,
          tags: role.tags,
          isAdult: role.isAdult,
          visibility: role.visibility,
          hiddenCauses: causes,
          creator: found.creatorId && creatorName ? { id: found.creatorId, username: creatorName } : null,
          language: role.sourceLanguage,
          createdAt: role.createdAt,
        },
        openReports: open.map((row) => ({
          id: row.id,
          reason: row.reason,
          text: row.text,
          reporterId: row.reporterId,
          reportedAt: row.createdAt.toISOString(),
        })),
        closedReports: closed.map((row) => ({
          id: row.id,
          reason: row.reason,
          outcome: row.outcome,
          reportedAt: row.createdAt.toISOString(),
          handledAt: row.handledAt?.toISOString() ?? null,
        })),
      }
    },
  }
}
