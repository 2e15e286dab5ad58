import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { LOCALES } from '#contracts/locales.ts'
import { ORDER_ID_PATTERN, ORDER_STATUSES, PAYMENT_TYPES } from '#contracts/payments.ts'
import { BILLING_CYCLES } from '#contracts/plans.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { PaymentsService } from './payments.service.ts'

const startBody = z.object({
  paymentType: z.enum(PAYMENT_TYPES).optional(),
  planId: z.string().min(1).max(40),
  billingCycle: z.enum(BILLING_CYCLES).default('monthly'),
  /** The page's language, so the provider sends the buyer back to the same language. */
  locale: z.enum(LOCALES).default('en'),
})
const started = okSchema(z.object({ orderId: z.string(), paymentUrl: z.string() }))
const orderIdSchema = z.string().regex(ORDER_ID_PATTERN, 'not an order id')

// Starting payments costs a provider call each: a few per minute are plenty for a person.
const START_LIMIT = { max: 10, windowMs: 60_000 }

export function paymentsRoutes(payments: PaymentsService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/subscription',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['payments'],
          summary: 'Subscribe to a plan by card: returns the Stripe Checkout page to open',
          security: [{ bearer: [] }],
          body: startBody,
          response: { 200: started },
        },
      },
      async (request) => {
        const userId = request.userId ?? ''
        await enforceLimit(kv, `payment:user:${userId}`, START_LIMIT)
        const { planId, billingCycle, locale } = request.body
        return ok(await payments.startCard(userId, planId, billingCycle, locale))
      },
    )

    app.post(
      '/payment',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['payments'],
          summary: 'Pay a plan period in crypto: returns the BTCPay invoice page to open',
          security: [{ bearer: [] }],
          body: startBody,
          response: { 200: started },
        },
      },
      async (request) => {
        const userId = request.userId ?? ''
        await enforceLimit(kv, `payment:user:${userId}`, START_LIMIT)
        const { planId, billingCycle, locale } = request.body
        return ok(await payments.startCrypto(userId, planId, billingCycle, locale))
      },
    )

    app.post(
      '/payment/status',
      {
        schema: {
          tags: ['payments'],
          summary: 'The status of an order (public; reveals nothing but the status)',
          body: z.object({ orderId: orderIdSchema }),
          response: { 200: okSchema(z.object({ orderId: z.string(), status: z.enum(ORDER_STATUSES) })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        const { orderId, status } = await payments.status(request.body.orderId)
        return ok({ orderId, status })
      },
    )

    app.get(
      '/subscription/current',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['payments'],
          summary: 'The plan the signed-in user holds now (null: the free plan)',
          security: [{ bearer: [] }],
          response: {
            200: okSchema(
              z.object({
                subscription: z
                  .object({
                    planId: z.string(),
                    billingCycle: z.enum(BILLING_CYCLES),
                    status: z.enum(['active', 'past_due', 'canceled']),
                    currentPeriodEnd: z.string(),
                  })
                  .nullable(),
              }),
            ),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        const row = await payments.currentSubscription(request.userId ?? '')
        return ok({
          subscription: row
            ? {
                planId: row.planId,
                billingCycle: row.billingCycle,
                status: row.status,
                currentPeriodEnd: row.currentPeriodEnd.toISOString(),
              }
            : null,
        })
      },
    )

    app.post(
      '/payment/sandbox',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['payments'],
          summary: 'Development only: settle a sandbox order as the provider would (404 when off)',
          security: [{ bearer: [] }],
          body: z.object({ orderId: orderIdSchema, outcome: z.enum(['paid', 'failed', 'canceled']) }),
          response: { 200: okSchema(z.object({ orderId: z.string(), status: z.enum(ORDER_STATUSES) })) },
        },
      },
      async (request) => {
        const { orderId, status } = await payments.settleSandbox(
          request.userId ?? '',
          request.body.orderId,
          request.body.outcome,
        )
        return ok({ orderId, status })
      },
    )
  }
}
