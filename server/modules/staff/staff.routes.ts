import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  adminMeSchema,
  auditPageSchema,
  auditQuery,
  codeBody,
  enableSchema,
  grantBody,
  revokeBody,
  setupSchema,
  staffListSchema,
  verifySchema,
} from '#contracts/admin-staff.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import { sourceOf } from '#server/modules/auth/abuse-limits.ts'
import type { AuditLog } from './audit.ts'
import type { StaffService } from './staff.service.ts'

const tags = ['admin']

/**
 * The console's foundation (ADR 054): the caller's state, the second factor, fresh confirmation,
 * staff grants and the audit log. Every route is gated in onRequest, before its body is read.
 */
export function staffRoutes(
  staff: StaffService,
  auditLog: AuditLog,
  usernameOf: (id: string) => Promise<string>,
): FastifyPluginAsyncZod {
  return async (app) => {
    const enrolling = { onRequest: app.requireStaff('moderator', { secondFactor: false }) }
    const moderator = { onRequest: app.requireStaff('moderator') }
    const admin = { onRequest: app.requireStaff('admin') }
    const sensitiveAdmin = { onRequest: [app.requireStaff('admin'), app.requireFreshConfirmation] }
    const consoleToken = (request: FastifyRequest) => {
      const token = request.staff?.consoleToken
      if (!token) throw new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Verify your second factor to open the console.')
      return token
    }

    app.get(
      '/admin/me',
      {
        ...enrolling,
        schema: {
          tags,
          summary: "The caller's staff role and second-factor state",
          response: { 200: okSchema(adminMeSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await staff.state(signedInUser(request), request.staff?.consoleToken))
      },
    )

    app.post(
      '/admin/2fa/setup',
      {
        ...enrolling,
        schema: {
          tags,
          summary: 'A new TOTP secret and its otpauth:// address',
          response: { 200: okSchema(setupSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const userId = signedInUser(request)
        return ok(await staff.setup(userId, await usernameOf(userId)))
      },
    )

    app.post(
      '/admin/2fa/enable',
      {
        ...enrolling,
        schema: {
          tags,
          summary: 'The first code enables the factor: ten recovery codes, shown once',
          body: codeBody,
          response: { 200: okSchema(enableSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await staff.enable(signedInUser(request), request.body.code, sourceOf(request.ip)))
      },
    )

    app.post(
      '/admin/2fa/verify',
      {
        ...enrolling,
        schema: {
          tags,
          summary: 'A TOTP or recovery code opens the console: a console token',
          body: codeBody,
          response: { 200: okSchema(verifySchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await staff.verify(signedInUser(request), request.body.code, sourceOf(request.ip)))
      },
    )

    app.post(
      '/admin/confirm',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'A current TOTP code: sensitive actions open for 5 minutes',
          body: codeBody,
          response: { 200: okSchema(z.object({})) },
        },
      },
      async (request) => {
        await staff.confirm(signedInUser(request), consoleToken(request), request.body.code, sourceOf(request.ip))
        return ok({})
      },
    )

    app.get(
      '/admin/staff',
      { ...admin, schema: { tags, summary: 'Every staff member', response: { 200: okSchema(staffListSchema) } } },
      async (_request, reply) => {
        privately(reply)
        const list = await staff.list()
        return ok(list.map((entry) => ({ ...entry, grantedAt: entry.grantedAt.toISOString() })))
      },
    )

    app.post(
      '/admin/staff/grant',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: 'Make an account staff (fresh confirmation)',
          body: grantBody,
          response: { 200: okSchema(z.object({ userId: z.string() })) },
        },
      },
      async (request) => {
        const { email, role, note } = request.body
        const { userId } = await staff.grant(email, role, { actorId: signedInUser(request) }, note)
        return ok({ userId })
      },
    )

    app.post(
      '/admin/staff/revoke',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: "End an account's staff role (fresh confirmation)",
          body: revokeBody,
          response: { 200: okSchema(z.object({ userId: z.string() })) },
        },
      },
      async (request) => {
        const { email, note } = request.body
        const { userId } = await staff.revoke(email, { actorId: signedInUser(request) }, note)
        return ok({ userId })
      },
    )

    app.post(
      '/admin/staff/reset-2fa',
      {
        ...sensitiveAdmin,
        schema: {
          tags,
          summary: "Remove a staff member's second factor (fresh confirmation)",
          body: revokeBody,
          response: { 200: okSchema(z.object({ userId: z.string() })) },
        },
      },
      async (request) => {
        const { email, note } = request.body
        const { userId } = await staff.resetSecondFactor(email, { actorId: signedInUser(request) }, note)
        return ok({ userId })
      },
    )

    app.get(
      '/admin/audit',
      {
        ...admin,
        schema: {
          tags,
          summary: 'The audit log, newest first, filtered',
          querystring: auditQuery,
          response: { 200: okSchema(auditPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        const result = await auditLog.page(filter, page, pageSize)
        return ok({
          items: result.items.map((r) => ({ ...r, at: r.at.toISOString() })),
          page,
          pageSize,
          total: result.total,
        })
      },
    )

    app.get(
      '/admin/audit.csv',
      {
        ...admin,
        schema: {
          tags,
          summary: 'The audit log as CSV (50,000 newest records of the filter)',
          querystring: auditQuery.omit({ page: true, pageSize: true }),
        },
      },
      async (request, reply) => {
        privately(reply)
        reply.header('content-type', 'text/csv; charset=utf-8')
        reply.header('content-disposition', 'attachment; filename="audit.csv"')
        return auditLog.csv(request.query)
      },
    )
  }
}
