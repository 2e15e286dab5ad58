import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { healthDailySchema, healthJobsSchema, healthModelsSchema, retryJobBody } from '#contracts/admin-health.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import { chatProviderOf } from '#server/modules/models/embedded/status.ts'
import type { ConsoleHealth } from './console-health.ts'
import type { ModelHealth } from './model-health.ts'

const tags = ['admin']

/**
 * The console's health dashboard (ADR 057): admins only (it shows revenue and the job queue's
 * errors, and a retry changes what runs). Gated in onRequest, before a body is read.
 */
export function consoleHealthRoutes(
  health: ConsoleHealth,
  modelHealth: Pick<ModelHealth, 'anyReachable'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = { onRequest: app.requireStaff('admin') }

    app.get(
      '/admin/health/daily',
      {
        ...admin,
        schema: {
          tags,
          summary: 'The last 30 UTC days: sign-ups, active users, messages, model errors, first-token time, revenue',
          response: { 200: okSchema(healthDailySchema) },
        },
      },
      async (_request, reply) => {
        privately(reply)
        return ok(await health.daily())
      },
    )

    app.get(
      '/admin/health/jobs',
      {
        ...admin,
        schema: {
          tags,
          summary: 'The job queue per kind and state, and the jobs that failed for good',
          response: { 200: okSchema(healthJobsSchema) },
        },
      },
      async (_request, reply) => {
        privately(reply)
        return ok(await health.jobs())
      },
    )

    app.post(
      '/admin/health/jobs/retry',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Queue a failed job again with all its attempts (audited)',
          body: retryJobBody,
          response: { 200: okSchema(z.object({ id: z.number().int(), kind: z.string() })) },
        },
      },
      async (request) => {
        const { id, note } = request.body
        return ok(await health.retryJob(id, signedInUser(request), note))
      },
    )

    app.get(
      '/admin/health/models',
      {
        ...admin,
        schema: {
          tags,
          summary: "The configured models, their server's last check and today's replies",
          response: { 200: okSchema(healthModelsSchema) },
        },
      },
      async (_request, reply) => {
        privately(reply)
        return ok({
          models: await health.models(),
          anyReachable: modelHealth.anyReachable(),
          chatProvider: chatProviderOf(app.embeddedModel, modelHealth.anyReachable()),
        })
      },
    )
  }
}
