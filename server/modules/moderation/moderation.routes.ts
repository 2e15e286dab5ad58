import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { REPORT_OUTCOMES, REPORT_REASONS } from '#contracts/characters.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { signedInUser } from '#server/lib/signed-in.ts'
import type { ModerationService } from './moderation.service.ts'

const myReport = z.object({
  id: z.number().int(),
  characterId: z.string(),
  characterName: z.string(),
  reason: z.enum(REPORT_REASONS),
  /** Null while open; otherwise how an operator closed it (their note stays private). */
  outcome: z.enum(REPORT_OUTCOMES).nullable(),
  reportedAt: z.string(),
  handledAt: z.string().nullable(),
})

/** The users' side of moderation (ADR 055): the reports they made and how each ended. Staff routes come with the console. */
export function moderationRoutes(moderation: ModerationService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/reports/mine',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'The reports the signed-in user made, newest first, with their outcome once handled',
          security: [{ bearer: [] }],
          response: { 200: okSchema(z.object({ items: z.array(myReport) })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        return ok({ items: await moderation.myReports(signedInUser(request)) })
      },
    )
  }
}
