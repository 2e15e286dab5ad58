import { timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import type { DiamondsService } from './diamonds.service.ts'

const planSchema = z.object({
  planId: z.string(),
  free: z.boolean(),
  priceMonthly: z.number().int(),
  priceYearly: z.number().int(),
  currency: z.string(),
  yearlySavingsPercent: z.number().int(),
  bestValue: z.boolean(),
  diamondsPerMonth: z.number().int(),
  memoryK: z.number().int(),
  unlimitedFreeModels: z.boolean(),
  premiumModels: z.boolean(),
})

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function diamondsRoutes(
  diamonds: DiamondsService,
  plans: Pick<Entitlements, 'listPlans'>,
  cronSecret: string | undefined,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/plan',
      {
        schema: {
          tags: ['plans'],
          summary: 'The plans on sale',
          response: { 200: okSchema(z.object({ plans: z.array(planSchema) })) },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300')
        return ok({ plans: await plans.listPlans() })
      },
    )

    app.get(
      '/points',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['diamonds'],
          summary: 'The signed-in user’s diamonds',
          security: [{ bearer: [] }],
          response: { 200: okSchema(z.object({ totalPoints: z.number().int() })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        return ok({ totalPoints: await diamonds.balanceOf(request.userId ?? '') })
      },
    )

    app.post(
      '/cron/award-monthly-points',
      {
        schema: {
          tags: ['diamonds'],
          summary: 'Credit this month’s plan diamonds (idempotent). Authorization: Bearer CRON_SECRET',
          response: { 200: okSchema(z.object({ period: z.string(), awarded: z.number().int() })) },
        },
      },
      async (request) => {
        if (!cronSecret) throw AppError.notFound('CRON_SECRET is not configured')
        const header = request.headers.authorization ?? ''
        if (!header.startsWith('Bearer ') || !sameSecret(header.slice(7), cronSecret)) throw AppError.unauthorized()
        return ok(await diamonds.awardMonthly())
      },
    )
  }
}
