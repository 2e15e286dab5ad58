import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { healthResponse, readinessResponse } from '#contracts/api-schemas.ts'
import { chatProviderOf } from '#server/modules/models/embedded/status.ts'
import type { ModelHealth } from './model-health.ts'

/**
 * Liveness and readiness for load balancers and orchestrators. These two answer plain JSON
 * (not the API envelope) because probes read the status code, and they stay outside `/api`.
 */
export const healthRoutes =
  (modelHealth: Pick<ModelHealth, 'statuses' | 'anyReachable'>): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/healthz',
      {
        logLevel: 'warn',
        schema: { tags: ['health'], summary: 'The process is up', response: { 200: healthResponse } },
      },
      async () => ({ status: 'ok' as const }),
    )

    app.get(
      '/readyz',
      {
        logLevel: 'warn',
        schema: {
          tags: ['health'],
          summary: 'The database (and Redis when configured) answers; the model servers are reported, never failing it',
          response: { 200: readinessResponse, 503: readinessResponse },
        },
      },
      async (request, reply) => {
        const checks: Record<string, 'ok' | 'failed'> = {}
        const probes: [string, () => Promise<void>][] = [['database', () => app.database.ping()]]
        if (app.kv.kind === 'redis') probes.push(['redis', () => app.kv.ping()])
        await Promise.all(
          probes.map(async ([name, probe]) => {
            try {
              await probe()
              checks[name] = 'ok'
            } catch (err) {
              request.log.warn({ err, check: name }, 'readiness check failed')
              checks[name] = 'failed'
            }
          }),
        )
        const ready = Object.values(checks).every((c) => c === 'ok')
        reply.header('cache-control', 'no-store')
        // A model server down is reported, not a reason to take this instance out of service: the
        // site, accounts and payments still work, and the chat says the model is unreachable (ADR 031).
        const models = modelHealth.statuses()
        // The embedded model being downloaded or loaded is reported the same way (ADR 037): the
        // instance serves every page meanwhile, and the chat says the model is being prepared.
        const embedded = app.embeddedModel
        const chatProvider = {
          ...chatProviderOf(embedded, modelHealth.anyReachable()),
          ...(embedded ? { model: embedded.status().displayName } : {}),
        }
        return reply
          .status(ready ? 200 : 503)
          .send({ status: ready ? 'ok' : 'unavailable', checks, models, chatProvider })
      },
    )
  }
