import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  changedSchema,
  characterActionBody,
  characterIdParams,
  characterQuery,
  handledSchema,
  handleReportsBody,
  queuePageSchema,
  reportedCharacterSchema,
  reportsQueueQuery,
  suspendCreatorBody,
} from '#contracts/admin-moderation.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import type { ModerationService } from './moderation.service.ts'

const tags = ['admin']

/**
 * The moderation console (ADR 058): the reports queue, one reported character, handling its
 * reports and the direct character actions, for moderators and admins with a verified second
 * factor. Suspending the creator's account is an admin's, with a fresh confirmation, as every
 * account action is. Every route is gated in onRequest, before its body is read; every action
 * takes a required note and is audited by the service in its transaction.
 */
export function moderationConsoleRoutes(moderation: ModerationService): FastifyPluginAsyncZod {
  return async (app) => {
    const moderator = { onRequest: app.requireStaff('moderator') }
    const sensitiveAdmin = { onRequest: [app.requireStaff('admin'), app.requireFreshConfirmation] }

    app.get(
      '/admin/moderation/reports',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Characters with open reports, the most reported first: reasons, reporters, newest report',
          querystring: reportsQueueQuery,
          response: { 200: okSchema(queuePageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize } = request.query
        // One more than the page tells whether another page follows.
        const [groups, total] = await Promise.all([
          moderation.reportsQueue({ offset: (page - 1) * pageSize, limit: pageSize + 1 }),
          moderation.reportsQueueTotal(),
        ])
        const items = groups.slice(0, pageSize).map((group) => ({
          character: {
            id: group.character.id,
            name: group.character.name,
            avatarUrl: group.character.avatarUrl,
            isAdult: group.character.isAdult,
            visibility: group.character.visibility,
            hidden: group.character.hidden,
            creator:
              group.character.creatorId && group.character.creatorName
                ? { id: group.character.creatorId, username: group.character.creatorName }
                : null,
          },
          reports: group.reports,
          reporters: group.reporters,
          reasons: group.reasons,
          firstReportedAt: group.firstReportedAt,
          lastReportedAt: group.lastReportedAt,
        }))
        return ok({ items, page, pageSize, total, hasMore: groups.length > pageSize })
      },
    )

    app.get(
      '/admin/moderation/characters/:characterId',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'One character as users see it (any visibility), why it is hidden, and its reports',
          params: characterIdParams,
          querystring: characterQuery,
          response: { 200: okSchema(reportedCharacterSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await moderation.reportedCharacter(request.params.characterId, request.query.locale))
      },
    )

    app.post(
      '/admin/moderation/characters/:characterId/reports',
      {
        ...moderator,
        schema: {
          tags,
          summary:
            'Close every open report of the character with one outcome: dismiss, hide, mark 18+, warn the creator',
          params: characterIdParams,
          body: handleReportsBody,
          response: { 200: okSchema(handledSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { action, note } = request.body
        const actor = { actorId: signedInUser(request), note }
        return ok(await moderation.handleReports(request.params.characterId, action, actor))
      },
    )

    app.post(
      '/admin/moderation/characters/:characterId/reports/suspend-creator',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: "Suspend the character's creator and close its open reports (admin, fresh confirmation)",
          params: characterIdParams,
          body: suspendCreatorBody,
          response: { 200: okSchema(handledSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok(await moderation.handleReports(request.params.characterId, 'suspend', actor))
      },
    )

    app.post(
      '/admin/moderation/characters/:characterId/actions',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Hide, restore, mark 18+ or unmark a character, reported or not (open reports stay open)',
          params: characterIdParams,
          body: characterActionBody,
          response: { 200: okSchema(changedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const id = request.params.characterId
        const { action, note } = request.body
        const actor = { actorId: signedInUser(request), note }
        if (action === 'hide') return ok(await moderation.hideCharacter(id, actor))
        if (action === 'restore') return ok(await moderation.restoreCharacter(id, actor))
        return ok(await moderation.setCharacterAdult(id, action === 'mark_adult', actor))
      },
    )
  }
}
