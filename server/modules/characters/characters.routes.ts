import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE, type Viewer } from '#contracts/catalogue.ts'
import { CHARACTER_LIMITS, CHARACTER_TEXT_FIELDS } from '#contracts/characters.ts'
import {
  editableRoleSchema,
  importResultSchema,
  myRoleSchema,
  ownRoleSchema,
  reportBody,
  roleIdParams,
} from '#contracts/characters-schemas.ts'
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { signedInUser } from '#server/lib/signed-in.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import { attachmentDisposition } from './card-mapping.ts'
import { type CharactersService, MAX_CARD_FILE_BYTES } from './characters.service.ts'
import { acceptMultipart, readFormData, uploadOf } from './multipart.ts'
import { parseRoleForm } from './role-form.ts'

const MiB = 1024 * 1024
/** The form's texts at their limits, at 4 UTF-8 bytes a character at worst. */
const TEXT_BYTES =
  4 *
  (CHARACTER_TEXT_FIELDS.reduce((sum, field) => sum + CHARACTER_LIMITS[field], 0) +
    CHARACTER_LIMITS.greetings * CHARACTER_LIMITS.greeting +
    CHARACTER_LIMITS.tags * CHARACTER_LIMITS.tagName)
/** Two images, the texts, the lorebook and the card extras at their limits, plus multipart overhead. */
const ROLE_FORM_BODY_LIMIT =
  2 * CHARACTER_LIMITS.imageBytes + TEXT_BYTES + CHARACTER_LIMITS.lorebookBytes + CHARACTER_LIMITS.cardExtrasBytes + MiB
const IMPORT_BODY_LIMIT = MAX_CARD_FILE_BYTES + MiB

const LIMITS = {
  save: { max: 30, windowMs: 60 * 60_000 },
  import: { max: 30, windowMs: 10 * 60_000 },
  report: { max: 10, windowMs: 60 * 60_000 },
}

const localeQuery = z.object({ locale: z.string().max(10).optional() })

const FORM_DESCRIPTION = [
  'multipart/form-data. Text parts: name (required), introduction, scenario, personality, details,',
  'firstMessage, exampleDialogue, visibility (public|private), isAdult (true|false). Repeated parts:',
  'alternateGreetings, tags (an existing slug or name, or a new name). JSON parts: lorebook (or null),',
  'cardExtras. Files: avatar, banner (5 MiB each; JPEG, PNG, WebP, GIF or AVIF, recognised from the',
  'bytes, re-encoded to WebP without metadata). removeAvatar / removeBanner (true) on edit. cardFiles:',
  "the import's cardFiles.token, keeping the card's other files; removeCardFiles (true) drops them. Refused",
  'fields come back as details [{ path, code, limit? }].',
].join(' ')

export function charactersRoutes(
  characters: CharactersService,
  catalogue: Pick<CatalogueService, 'adultConfirmed'>,
  kv: KeyValueStore,
): FastifyPluginAsyncZod {
  return async (app) => {
    acceptMultipart(app)

    function localeOf(request: FastifyRequest, requested: string | undefined): string {
      if (requested && isLocale(requested)) return requested
      const cookie = request.cookies[LOCALE_COOKIE]
      return isLocale(cookie) ? cookie : DEFAULT_LOCALE
    }
    async function viewerOf(request: FastifyRequest): Promise<Viewer> {
      return {
        userId: request.userId,
        adultConfirmed: await catalogue.adultConfirmed(request.userId, request.cookies[ADULT_COOKIE] === '1'),
      }
    }

    app.post(
      '/addRole',
      {
        bodyLimit: ROLE_FORM_BODY_LIMIT,
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'Create a character owned by the signed-in user',
          description: FORM_DESCRIPTION,
          consumes: ['multipart/form-data'],
          querystring: localeQuery,
          response: { 200: okSchema(editableRoleSchema) },
        },
      },
      async (request) => {
        const userId = signedInUser(request)
        const form = await parseRoleForm(await readFormData(request))
        await enforceLimit(kv, `role-save:${userId}`, LIMITS.save)
        return ok(await characters.createRole(userId, form, localeOf(request, request.query.locale)))
      },
    )

    app.put(
      '/roles/:id',
      {
        bodyLimit: ROLE_FORM_BODY_LIMIT,
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'Replace one of your characters (absent files, lorebook and card extras are kept)',
          description: FORM_DESCRIPTION,
          consumes: ['multipart/form-data'],
          params: roleIdParams,
          querystring: localeQuery,
          response: { 200: okSchema(editableRoleSchema) },
        },
      },
      async (request) => {
        const userId = signedInUser(request)
        const form = await parseRoleForm(await readFormData(request))
        await enforceLimit(kv, `role-save:${userId}`, LIMITS.save)
        return ok(await characters.updateRole(userId, request.params.id, form, localeOf(request, request.query.locale)))
      },
    )

    app.delete(
      '/roles/:id',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'Delete one of your characters (its chats stay, without it)',
          params: roleIdParams,
          response: { 200: okSchema(z.object({ deleted: z.literal(true) })) },
        },
      },
      async (request) => {
        await characters.deleteRole(signedInUser(request), request.params.id)
        return ok({ deleted: true as const })
      },
    )

    app.get(
      '/my/roles',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'My characters, newest first (private ones included)',
          querystring: localeQuery,
          response: { 200: okSchema(z.object({ roles: z.array(myRoleSchema) })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        return ok({ roles: await characters.listOwn(signedInUser(request), localeOf(request, request.query.locale)) })
      },
    )

    app.get(
      '/my/roles/:id',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'One of your characters: its page view (private ones too) and its edit form',
          params: roleIdParams,
          querystring: localeQuery,
          response: { 200: okSchema(ownRoleSchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        const own = await characters.getOwn(
          signedInUser(request),
          request.params.id,
          await viewerOf(request),
          localeOf(request, request.query.locale),
        )
        return ok(own)
      },
    )

    app.post(
      '/roles/import',
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: 'Read a Character Card (PNG, JSON or CHARX; V1, V2, V3) into a form draft, saving nothing',
          description:
            'multipart/form-data with one file part `file` (20 MiB). A card that cannot be read answers 400 INVALID_CARD (or 413 for sizes) with details.reason, one of the card codes of server/modules/cards. A card read whole answers its draft, nothing cut; report.problems lists what the save would refuse as it is ({ path, code, limit? }, as a refused save).',
          consumes: ['multipart/form-data'],
          querystring: localeQuery,
          response: { 200: okSchema(importResultSchema) },
        },
      },
      async (request) => {
        const userId = signedInUser(request)
        await enforceLimit(kv, `card-import:${userId}`, LIMITS.import)
        const form = await readFormData(request)
        const file = await uploadOf(form.get('file'))
        if (!file) {
          throw new AppError(400, 'INVALID_CARD', 'Send the card as the file part `file`.', { reason: 'empty_file' })
        }
        return ok(await characters.importCard(userId, file.bytes, file.name, localeOf(request, request.query.locale)))
      },
    )

    const EXPORT_SUMMARIES = {
      png: 'Download a character as a PNG card (chara V2 and ccv3 V3 chunks)',
      json: 'Download a character as a chara_card_v3 JSON card',
      charx:
        "Download a character as a CHARX card (zip: card.json V3, the picture as the main icon, the card's other files)",
    } as const
    for (const format of ['png', 'json', 'charx'] as const) {
      app.get(
        `/roles/:id/export.${format}`,
        { schema: { tags: ['characters'], summary: EXPORT_SUMMARIES[format], params: roleIdParams } },
        async (request, reply) => {
          const exported = await characters.exportCard(request.params.id, await viewerOf(request), format)
          reply.header('cache-control', exported.private ? 'private, no-store' : 'private, no-cache')
          // The character's name in its own script, with an ASCII fallback (RFC 6266, RFC 5987).
          reply.header('content-disposition', attachmentDisposition(exported.fileName))
          if ('png' in exported) return reply.type('image/png').send(exported.png)
          if ('charx' in exported) return reply.type('application/zip').send(exported.charx)
          return reply.type('application/json; charset=utf-8').send(JSON.stringify(exported.card, null, 2))
        },
      )
    }

    app.post(
      '/roles/:id/report',
      {
        schema: {
          tags: ['characters'],
          summary: 'Report a character to the operators (signed in or not; rate limited)',
          params: roleIdParams,
          body: reportBody,
          response: { 200: okSchema(z.object({ reported: z.literal(true) })) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `role-report:${request.userId ?? request.ip}`, LIMITS.report)
        await characters.reportRole(request.params.id, await viewerOf(request), request.body)
        return ok({ reported: true as const })
      },
    )
  }
}
