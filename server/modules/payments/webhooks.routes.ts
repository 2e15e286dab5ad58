import type { FastifyPluginAsync } from 'fastify'
import { AppError } from '#server/lib/errors.ts'
import { notConfigured, type PaymentGateways } from './gateways.ts'
import type { PaymentsService } from './payments.service.ts'

/**
 * `POST /api/webhooks/<provider>` for every provider the code knows (`/webhooks/stripe`,
 * `/webhooks/btcpay`): the provider's gateway verifies the delivery and turns it into a
 * provider-neutral outcome, which `payments.handleEvent` applies once. The raw body is read because
 * the signature covers the exact bytes; a bad signature is a 400 and changes nothing; a provider
 * not configured is a 404. Errors while applying an event answer 5xx/409 so the provider delivers
 * it again later.
 */
export function webhookRoutes(payments: PaymentsService, gateways: PaymentGateways): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_request, body, done) =>
      done(null, body),
    )

    for (const { definition, gateway } of gateways.webhooks) {
      const { provider, name, paymentTypes } = definition
      app.post(
        `/webhooks/${provider}`,
        { schema: { tags: ['payments'], summary: `${name} webhook (signed)` } },
        async (request) => {
          if (!gateway) throw AppError.notFound(notConfigured(paymentTypes[0] ?? 'card'))
          const { event, outcome } = await gateway.parseWebhook(request.body as Buffer, request.headers)
          const handled = await payments.handleEvent(provider, event, outcome)
          return { received: true, duplicate: !handled }
        },
      )
    }
  }
}
