import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  chatPersonaSchema,
  createPersonaBody,
  defaultPersonaBody,
  myPersonasQuery,
  myPersonasSchema,
  personaBody,
  personaIdParams,
  personaSchema,
} from '#contracts/personas-schemas.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, ownRoutes, privately, signedInUser } from '#server/lib/signed-in.ts'
import { acceptMultipart, readFormData, uploadOf } from '#server/modules/characters/multipart.ts'
import { MAX_IMAGE_BYTES } from '#server/modules/images/images.service.ts'
import type { PersonasService } from './personas.service.ts'

/** Changes to one's personas and chats' personas: generous for a person, a wall for a script. */
const CHANGES = { max: 120, windowMs: 10 * 60_000 }
const AVATARS = { max: 30, windowMs: 10 * 60_000 }

/**
 * A user's personas and the persona of each of their chats (ADR 049). Every call is the signed-in
 * user's; another user's persona or chat answers 404.
 */
export function personasRoutes(personas: PersonasService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    acceptMultipart(app)

    const mine = ownRoutes(app, 'personas')
    const changingUser = (request: FastifyRequest) => limitedUser(kv, request, 'persona-change', CHANGES)

    app.get(
      '/my/personas',
      mine('My personas, oldest first', {
        querystring: myPersonasQuery,
        response: { 200: okSchema(myPersonasSchema) },
      }),
      async (request, reply) => {
        privately(reply)
        return ok(await personas.list(signedInUser(request), request.query.page, request.query.pageSize))
      },
    )

    app.post(
      '/personas',
      mine('Add a persona (20 at most; name 1-80 characters, description up to 2,000)', {
        description:
          'A refused field answers 400 VALIDATION_ERROR with details [{ path, code, limit }]: code `required` or `too_long` on `name`/`description`, `too_many` on `personas` when 20 are kept.',
        body: createPersonaBody,
        response: { 200: okSchema(personaSchema) },
      }),
      async (request) => {
        const userId = await changingUser(request)
        const { isDefault, ...fields } = request.body
        return ok(await personas.create(userId, fields, isDefault))
      },
    )

    app.patch(
      '/personas/:id',
      mine("Change a persona's name and description", {
        params: personaIdParams,
        body: personaBody.strict(),
        response: { 200: okSchema(personaSchema) },
      }),
      async (request) => ok(await personas.update(await changingUser(request), request.params.id, request.body)),
    )

    app.delete(
      '/personas/:id',
      mine('Delete a persona (its chats use the account name from then on)', {
        params: personaIdParams,
        response: { 200: okSchema(z.object({ deleted: z.literal(true) })) },
      }),
      async (request) => ok(await personas.remove(await changingUser(request), request.params.id)),
    )

    app.put(
      '/personas/default',
      mine('Make a persona the default of new chats (null: none, the account name)', {
        body: defaultPersonaBody,
        response: { 200: okSchema(defaultPersonaBody) },
      }),
      async (request) => ok(await personas.setDefault(await changingUser(request), request.body.personaId)),
    )

    app.put(
      '/personas/:id/avatar',
      {
        bodyLimit: MAX_IMAGE_BYTES + 1024 * 1024,
        ...mine("Set a persona's avatar (multipart/form-data, file part `avatar`; JPEG, PNG, WebP, GIF or AVIF)", {
          consumes: ['multipart/form-data'],
          params: personaIdParams,
          response: { 200: okSchema(personaSchema) },
        }),
      },
      async (request) => {
        const userId = await limitedUser(kv, request, 'persona-avatar', AVATARS)
        const file = await uploadOf((await readFormData(request)).get('avatar'))
        if (!file) throw new AppError(400, 'VALIDATION_ERROR', 'Send the picture as the file part `avatar`.')
        return ok(await personas.setAvatar(userId, request.params.id, file.bytes))
      },
    )

    app.delete(
      '/personas/:id/avatar',
      mine("Remove a persona's avatar", {
        params: personaIdParams,
        response: { 200: okSchema(personaSchema) },
      }),
      async (request) => ok(await personas.setAvatar(await changingUser(request), request.params.id, null)),
    )

    app.get(
      '/chat/persona',
      mine('The persona of one of my chats (null: the account name)', {
        querystring: z.object({ sessionId: z.uuid() }),
        response: { 200: okSchema(chatPersonaSchema) },
      }),
      async (request, reply) => {
        privately(reply)
        return ok(await personas.chatPersona(signedInUser(request), request.query.sessionId))
      },
    )

    app.put(
      '/chat/persona',
      mine('Set the persona of one of my chats, from its next reply on (null: the account name)', {
        body: chatPersonaSchema.strict(),
        response: { 200: okSchema(chatPersonaSchema) },
      }),
      async (request) =>
        ok(await personas.setChatPersona(await changingUser(request), request.body.sessionId, request.body.personaId)),
    )
  }
}
