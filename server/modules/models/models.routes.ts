import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { modelListSchema } from '#contracts/chat-schemas.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { ModelHealth } from '#server/modules/health/model-health.ts'
import { chatProviderOf } from './embedded/status.ts'
import type { ModelRegistry } from './models.ts'

export function modelsRoutes(
  registry: ModelRegistry,
  health: Pick<ModelHealth, 'statuses' | 'anyReachable'>,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/models',
      {
        schema: {
          tags: ['chat'],
          summary: 'The models offered: free or premium, diamonds per message, context size; the first is the default',
          response: { 200: okSchema(modelListSchema) },
        },
      },
      async (_request, reply) => {
        const chatProvider = chatProviderOf(app.embeddedModel, health.anyReachable())
        // A minute: the model servers are checked every minute. While the embedded model is being
        // prepared the chat page polls this for its progress: not kept then (ADR 037).
        const preparing = chatProvider.kind === 'embedded' && chatProvider.state !== 'ready'
        reply.header('cache-control', preparing ? 'no-store' : 'public, max-age=60')
        const statuses = health.statuses()
        return ok({
          models: registry.listPublic(),
          defaultModelId: registry.defaultModel.id,
          // Not a server address or reason: only whether the chat can expect an answer (ADR 031).
          reachable: Object.fromEntries(
            registry.models.map((m) => [m.id, statuses[m.id] === 'ok' || statuses[m.id] === 'unknown']),
          ),
          anyReachable: health.anyReachable(),
          chatProvider,
        })
      },
    )
  }
}
