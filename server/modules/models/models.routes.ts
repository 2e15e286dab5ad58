import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { modelListSchema } from '#contracts/chat-schemas.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { ModelRegistry } from './models.ts'

export function modelsRoutes(registry: ModelRegistry): FastifyPluginAsyncZod {
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
        reply.header('cache-control', 'public, max-age=300')
        return ok({ models: registry.listPublic(), defaultModelId: registry.defaultModel.id })
      },
    )
  }
}
