import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { accountSummary, deleteAccountBody } from '#contracts/account-schemas.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { signedInUser } from '#server/lib/signed-in.ts'
import type { AccountService } from './account.service.ts'

export function accountRoutes(account: AccountService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['accounts']

    app.get(
      '/account',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary: 'The signed-in account: name, e-mail, whether it has a password (deletion asks for it), created',
          security: [{ bearer: [] }],
          response: { 200: okSchema(accountSummary) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        return ok(await account.summary(signedInUser(request)))
      },
    )

    app.get(
      '/account/export',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary:
            'Download everything stored about the signed-in user (profile, characters, personas, chats with every reply alternative, diamonds, orders, reports) as a JSON file',
          security: [{ bearer: [] }],
        },
      },
      async (request, reply) => {
        const data = await account.exportData(signedInUser(request))
        const date = data.exportedAt.slice(0, 10)
        reply
          .header('cache-control', 'no-store')
          .header('content-type', 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="taleweave-data-${date}.json"`)
        return JSON.stringify(data, null, 2)
      },
    )

    app.post(
      '/account/delete',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary:
            'Delete the signed-in account and everything personal, confirmed with the password (or the e-mail address for accounts without one)',
          security: [{ bearer: [] }],
          body: deleteAccountBody,
          response: { 200: okSchema(z.object({ message: z.literal('deleted') })) },
        },
      },
      async (request) => {
        await account.deleteAccount(signedInUser(request), request.body, request.ip)
        return ok({ message: 'deleted' as const })
      },
    )
  }
}
