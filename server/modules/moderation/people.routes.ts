import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  balanceSchema,
  changedSchema,
  deletedSchema,
  diamondsBody,
  noteBody,
  peoplePageSchema,
  peopleQuery,
  personDetailSchema,
  personParams,
  sentSchema,
} from '#contracts/admin-people.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import type { ModerationService } from './moderation.service.ts'

const tags = ['admin']

/** An operator does not suspend, delete or pay themselves: another admin must. */
function notOneself(actorId: string, userId: string) {
  if (actorId === userId) {
    throw AppError.conflict('Another administrator must do this to your own account.', { reason: 'own-account' })
  }
}

/**
 * The people side of the operator console (ADR 060): **admin only**
 * (moderators handle content, never accounts), second factor verified, `private, no-store`;
 * suspend, delete and diamonds also need a fresh confirmation (as a refund does). Every action
 * takes a required note and writes one audit record (the service does, in its transaction).
 */
export function peopleRoutes(
  moderation: ModerationService,
  usernameOf: (userId: string) => Promise<string>,
): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = { onRequest: app.requireStaff('admin') }
    const sensitiveAdmin = { onRequest: [app.requireStaff('admin'), app.requireFreshConfirmation] }
    const actor = (request: { userId?: string | null }, note: string) => ({ actorId: signedInUser(request), note })

    app.get(
      '/admin/people',
      {
        ...admin,
        schema: {
          tags,
          summary: 'People by id, e-mail (exact or its beginning) or the beginning of a username, paged',
          querystring: peopleQuery,
          response: { 200: okSchema(peoplePageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { q, page, pageSize } = request.query
        return ok(await moderation.searchPeoplePage(q, page, pageSize))
      },
    )

    app.get(
      '/admin/people/:userId',
      {
        ...admin,
        schema: {
          tags,
          summary:
            'A person: account, suspension, plan, balance and ledger, characters, reports, warnings (never a chat)',
          params: personParams,
          response: { 200: okSchema(personDetailSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const detail = await moderation.personDetail(request.params.userId)
        const by = detail.suspended?.by
        const suspended = detail.suspended ? { ...detail.suspended, byName: by ? await usernameOf(by) : '' } : null
        return ok({ ...detail, suspended })
      },
    )

    app.post(
      '/admin/people/:userId/suspend',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary:
            'Suspend: every login ends at once, new ones are refused, public characters hidden (fresh confirmation)',
          params: personParams,
          body: noteBody,
          response: { 200: okSchema(changedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const who = actor(request, request.body.note)
        notOneself(who.actorId, request.params.userId)
        return ok(await moderation.suspendUser(request.params.userId, who))
      },
    )

    app.post(
      '/admin/people/:userId/restore',
      {
        ...admin,
        schema: {
          tags,
          summary: 'End a suspension: logins are allowed again, characters hidden for it come back',
          params: personParams,
          body: noteBody,
          response: { 200: okSchema(changedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await moderation.restoreUser(request.params.userId, actor(request, request.body.note)))
      },
    )

    app.post(
      '/admin/people/:userId/warn',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Warn: kept on their record and mailed in their language, quoting the note',
          params: personParams,
          body: noteBody,
          response: { 200: okSchema(changedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        await moderation.warnUser(request.params.userId, actor(request, request.body.note))
        return ok({ changed: true })
      },
    )

    app.post(
      '/admin/people/:userId/delete',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: 'Delete the account as account deletion does (fresh confirmation); 409 while a plan is charged',
          params: personParams,
          body: noteBody,
          response: { 200: okSchema(deletedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const who = actor(request, request.body.note)
        notOneself(who.actorId, request.params.userId)
        await moderation.deleteUser(request.params.userId, who)
        return ok({ deleted: true as const })
      },
    )

    app.post(
      '/admin/people/:userId/resend-verification',
      {
        ...admin,
        schema: {
          tags,
          summary: 'The verification mail again; sent: false when verified already or the mail limit is reached',
          params: personParams,
          body: noteBody,
          response: { 200: okSchema(sentSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await moderation.resendVerification(request.params.userId, actor(request, request.body.note)))
      },
    )

    app.post(
      '/admin/people/:userId/diamonds',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary:
            'Grant (positive) or deduct (negative) diamonds through the ledger (fresh confirmation); 409 BALANCE_BELOW_ZERO',
          params: personParams,
          body: diamondsBody,
          response: { 200: okSchema(balanceSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const who = actor(request, request.body.note)
        notOneself(who.actorId, request.params.userId)
        return ok(await moderation.adjustDiamonds(request.params.userId, request.body.amount, who))
      },
    )
  }
}
