import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { LOCALES } from '#contracts/locales.ts'
import { ORDER_ID_PATTERN, ORDER_STATUSES } from '#contracts/payments.ts'
import { currentSubscriptionResponse, subscriptionView } from '#contracts/payments-schemas.ts'
import { BILLING_CYCLES } from '#contracts/plans.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { PaymentsService } from './payments.service.ts'

// The path says how the user pays (/subscription: card, /payment: crypto). The `paymentType` field
// older pages sent is stripped like any unknown field, so their requests still work.
const startBody = z.object({
  planId: z.string().min(1).max(40),
  billingCycle: z.enum(BILLING_CYCLES).default('monthly'),
  /** The page's language, so the provider sends the buyer back to the same language. */
  locale: z.enum(LOCALES).default('en'),
})
const startedFields = z.object({ orderId: z.string(), paymentUrl: z.string() })
const started = okSchema(startedFields)
/** A running card plan is changed in place (ADR 025): the plan as it now is, no payment page. */
const startedOrChanged = okSchema(z.union([startedFields, z.object({ subscription: subscriptionView })]))
const orderIdSchema = z.string().regex(ORDER_ID_PATTERN, 'not an order id')

// Starting payments costs a provider call each: a few per minute are plenty for a person.
const START_LIMIT = { max: 10, windowMs: 60_000 }
// Cancelling and resuming call the provider too.
const RENEWAL_LIMIT = { max: 10, windowMs: 60_000 }
/** Cancel and resume act on the signed-in user's one plan: nothing to say but an empty body. */
const renewalBody = z.object({}).strict().nullish()

export function paymentsRoutes(payments: PaymentsService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/subscription',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['payments'],
          summary:
            'Subscribe to a plan by card: returns the Stripe Checkout page to open; while a card plan runs, an upgrade or a switch to yearly changes that subscription (prorated, charged to the saved card) and returns the plan as it now is. 409 ALREADY_SUBSCRIBED for the plan and cycle held, 409 PLAN_CHANGE_NOT_ALLOWED for a step down or while a one-off plan runs, 402 PAYMENT_DECLINED when the prorated charge fails (nothing changed). A new checkout first closes the user’s other open checkouts (Stripe sessions expired, BTCPay invoices marked invalid); 409 PAYMENT_IN_PROGRESS when one of them was just paid',
          security: [{ bearer: [] }],
          body: startBody,
          response: { 200: startedOrChanged },
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
          summary:
            'Pay a plan period in crypto: returns the BTCPay invoice page to open. Paying for the plan held extends it from its end; a higher plan starts now with the days left converted; 409 PLAN_CHANGE_NOT_ALLOWED for a lower plan or while a card plan renews. Closes the user’s open card checkouts first; 409 PAYMENT_IN_PROGRESS when one was just paid',
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
          summary:
            'The plan the signed-in user holds now (null: the free plan), whether it renews and when its period ends',
          security: [{ bearer: [] }],
          response: { 200: okSchema(currentSubscriptionResponse) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        return ok({ subscription: await payments.current(request.userId ?? '') })
      },
    )

    // Cancel and resume: the same call but for the direction of the change.
    for (const { path, summary, change } of [
      {
        path: '/subscription/cancel',
        summary:
          'Stop the renewal of the signed-in user’s plan: it and its diamonds stay until the period ends (a plan that does not renew is returned unchanged; 404 on the free plan; 503 when the provider is unreachable, nothing changed)',
        change: (userId: string) => payments.cancel(userId),
      },
      {
        path: '/subscription/resume',
        summary:
          'Undo a cancellation before the period ends: the plan renews again (409 for a plan paid for one period, which never renews)',
        change: (userId: string) => payments.resume(userId),
      },
    ]) {
      app.post(
        path,
        {
          preHandler: app.requireUser,
          schema: {
            tags: ['payments'],
            summary,
            security: [{ bearer: [] }],
            body: renewalBody,
            response: { 200: okSchema(subscriptionView) },
          },
        },
        async (request, reply) => {
          reply.header('cache-control', 'no-store')
          const userId = request.userId ?? ''
          await enforceLimit(kv, `renewal:user:${userId}`, RENEWAL_LIMIT)
          return ok(await change(userId))
        },
      )
    }

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
