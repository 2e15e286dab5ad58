import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import {
  roleTranslationListSchema,
  translationRemoveBody,
  translationRoleBody,
  translationSaveBody,
} from '#contracts/role-texts-schemas.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { signedInUser } from '#server/lib/signed-in.ts'
import type { RoleTextsService } from './role-texts.service.ts'

const security = [{ bearer: [] }]
/** Saving and removing translations: generous for a creator at work, bounded for a script. */
const WRITE_LIMIT = { max: 120, windowMs: 60 * 60_000 }

/**
 * The creator's translations of their character (ADR 039). Each needs a signed-in user, checked
 * before the body is read (`app.requireUser`); only the creator may list or change them (404 for
 * someone else's private character, 403 for someone else's public one, as the other role routes).
 */
export function roleTextsRoutes(texts: RoleTextsService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/role/translations',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: "Your character's translations: its source language and each locale's texts",
          security,
          body: translationRoleBody,
          response: { 200: okSchema(roleTranslationListSchema) },
        },
      },
      async (request) => ok(await texts.listTranslations(signedInUser(request), request.body.roleId)),
    )

    app.post(
      '/role/translations/save',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: "Save your translation of your character's texts into one locale (not its source language)",
          description:
            'Empty texts (and no name) show the source text. Lengths as the source fields; refused fields come back as details [{ path, code, limit? }].',
          security,
          body: translationSaveBody,
          response: { 200: okSchema(roleTranslationListSchema) },
        },
      },
      async (request) => {
        const userId = signedInUser(request)
        await enforceLimit(kv, `role-translation:${userId}`, WRITE_LIMIT)
        const { roleId, locale, texts: body } = request.body
        return ok(await texts.saveAuthorTranslation(userId, roleId, locale, body))
      },
    )

    app.post(
      '/role/translations/remove',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'Remove a translation of your character; that locale shows the source texts again',
          security,
          body: translationRemoveBody,
          response: { 200: okSchema(roleTranslationListSchema) },
        },
      },
      async (request) => {
        const userId = signedInUser(request)
        await enforceLimit(kv, `role-translation:${userId}`, WRITE_LIMIT)
        return ok(await texts.removeTranslation(userId, request.body.roleId, request.body.locale))
      },
    )
  }
}
