import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { roleIdParams } from '#contracts/characters-schemas.ts'
import { LOREBOOK_EXPORT_FORMATS, LOREBOOK_LIMITS } from '#contracts/lorebooks.ts'
import {
  attachedLorebooksSchema,
  attachLorebooksBody,
  lorebookDetailSchema,
  lorebookIdParams,
  lorebookImportResultSchema,
  lorebookSummarySchema,
  myLorebooksQuery,
  myLorebooksSchema,
  renameLorebookBody,
} from '#contracts/lorebooks-schemas.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, ownRoutes, privately, signedInUser } from '#server/lib/signed-in.ts'
import { acceptMultipart, readFormData, uploadOf } from '#server/modules/characters/multipart.ts'
import type { LorebooksService } from './lorebooks.service.ts'

const MiB = 1024 * 1024
/** The file at its limit plus the multipart envelope. */
const IMPORT_BODY_LIMIT = LOREBOOK_LIMITS.fileBytes + MiB

/** Like card imports: 30 per 10 minutes per user. */
const LIMITS = {
  import: { max: 30, windowMs: 10 * 60_000 },
  change: { max: 120, windowMs: 10 * 60_000 },
}

const importQuery = z.object({
  name: z
    .string()
    .max(LOREBOOK_LIMITS.name * 4)
    .optional(),
})
const exportQuery = z.object({ format: z.enum(LOREBOOK_EXPORT_FORMATS).default('v3') })

/**
 * `attachment` with the name twice (RFC 6266): an ASCII stand-in for old clients, and the real one
 * in UTF-8 (`filename*`, RFC 5987) so a book named in Japanese downloads under that name.
 */
export function attachmentHeader(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%/]/g, '_')
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/**
 * A user's own lorebooks (ADR 043). Every call is the signed-in user's: their token is checked before
 * the body is read (`app.requireUser`), and someone else's book answers 404.
 */
export function lorebooksRoutes(lorebooks: LorebooksService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    acceptMultipart(app)

    const mine = ownRoutes(app, 'lorebooks')
    /** The user of a call that changes their books or attachments, within its rate limit. */
    const changingUser = (request: FastifyRequest) => limitedUser(kv, request, 'lorebook-change', LIMITS.change)

    app.post(
      '/lorebooks/import',
      {
        bodyLimit: IMPORT_BODY_LIMIT,
        ...mine('Keep a lorebook file (SillyTavern World Info, V3 lorebook or a character_book) as one of yours', {
          description:
            'multipart/form-data with one file part `file`, or the file itself as an application/json body (`name` query: the name of a book without one). 2 MiB, 2,000 entries. A file that is no lorebook answers 400 INVALID_LOREBOOK (413 for sizes) with details.reason.',
          consumes: ['multipart/form-data', 'application/json'],
          querystring: importQuery,
          response: { 200: okSchema(lorebookImportResultSchema) },
        }),
      },
      async (request) => {
        const userId = signedInUser(request)
        await enforceLimit(kv, `lorebook-import:${userId}`, LIMITS.import)
        if (Buffer.isBuffer(request.body)) {
          const file = await uploadOf((await readFormData(request)).get('file'))
          if (!file) {
            throw new AppError(400, 'INVALID_LOREBOOK', 'Send the lorebook as the file part `file`.', {
              reason: 'empty_file',
            })
          }
          return ok(await lorebooks.importFile(userId, file.bytes, file.name))
        }
        if (request.body === undefined || request.body === null) {
          throw new AppError(400, 'INVALID_LOREBOOK', 'Send a lorebook file.', { reason: 'empty_file' })
        }
        if (Buffer.byteLength(JSON.stringify(request.body)) > LOREBOOK_LIMITS.fileBytes) {
          throw new AppError(413, 'PAYLOAD_TOO_LARGE', 'The lorebook is over the size limit', {
            reason: 'too_large',
            field: 'file',
            limit: LOREBOOK_LIMITS.fileBytes,
          })
        }
        return ok(await lorebooks.importJson(userId, request.body, request.query.name))
      },
    )

    app.get(
      '/my/lorebooks',
      mine('My lorebooks, newest first', {
        querystring: myLorebooksQuery,
        response: { 200: okSchema(myLorebooksSchema) },
      }),
      async (request, reply) => {
        privately(reply)
        return ok(await lorebooks.listMine(signedInUser(request), request.query.page, request.query.pageSize))
      },
    )

    app.get(
      '/lorebooks/:id',
      mine('One of my lorebooks with its entries', {
        params: lorebookIdParams,
        response: { 200: okSchema(lorebookDetailSchema) },
      }),
      async (request, reply) => {
        privately(reply)
        return ok(await lorebooks.get(signedInUser(request), request.params.id))
      },
    )

    app.patch(
      '/lorebooks/:id',
      mine('Rename one of my lorebooks', {
        params: lorebookIdParams,
        body: renameLorebookBody,
        response: { 200: okSchema(lorebookSummarySchema) },
      }),
      async (request) => {
        const userId = await changingUser(request)
        return ok(await lorebooks.rename(userId, request.params.id, request.body.name))
      },
    )

    app.delete(
      '/lorebooks/:id',
      mine('Delete one of my lorebooks (the characters it was attached to lose it)', {
        params: lorebookIdParams,
        response: { 200: okSchema(z.object({ deleted: z.literal(true) })) },
      }),
      async (request) => {
        await lorebooks.delete(signedInUser(request), request.params.id)
        return ok({ deleted: true as const })
      },
    )

    app.get(
      '/lorebooks/:id/export.json',
      mine('Download one of my lorebooks as a V3 lorebook (format=v3) or SillyTavern World Info (format=world_info)', {
        params: lorebookIdParams,
        querystring: exportQuery,
      }),
      async (request, reply) => {
        const exported = await lorebooks.export(signedInUser(request), request.params.id, request.query.format)
        privately(reply)
        reply.header('content-disposition', attachmentHeader(exported.fileName))
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(exported.file, null, 2))
      },
    )

    app.get(
      '/roles/:id/lorebooks',
      mine('The lorebooks attached to one of my characters, in the order the chat reads them', {
        params: roleIdParams,
        response: { 200: okSchema(attachedLorebooksSchema) },
      }),
      async (request, reply) => {
        privately(reply)
        return ok(await lorebooks.attachedTo(signedInUser(request), request.params.id))
      },
    )

    app.put(
      '/roles/:id/lorebooks',
      mine('Attach exactly these lorebooks of mine, in this order, to one of my characters', {
        params: roleIdParams,
        body: attachLorebooksBody,
        response: { 200: okSchema(attachedLorebooksSchema) },
      }),
      async (request) => {
        const userId = await changingUser(request)
        return ok(await lorebooks.setAttached(userId, request.params.id, request.body.lorebookIds))
      },
    )
  }
}
