import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import { contactBody } from '#contracts/site-schemas.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { ContactService } from './contact.service.ts'

/** `POST /api/public/contact`: the contact form of the links page. */
export function contactRoutes(contact: ContactService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/public/contact',
      {
        schema: {
          tags: ['contact'],
          summary: 'Mail a message to the operator (human verification required; five an hour per address)',
          body: contactBody,
          response: { 200: okSchema(z.object({ message: z.string() })) },
        },
      },
      async (request, reply) => {
        const cookieLocale = request.cookies[LOCALE_COOKIE]
        await contact.send({
          ...request.body,
          locale: request.body.locale ?? (isLocale(cookieLocale) ? cookieLocale : undefined),
          ip: request.ip,
        })
        reply.header('cache-control', 'no-store')
        return ok({ message: 'sent' })
      },
    )
  }
}
