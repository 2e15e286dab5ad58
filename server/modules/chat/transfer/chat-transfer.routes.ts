import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { CHAT_EXPORT_FORMATS, CHAT_IMPORT_LIMITS, CHAT_IMPORT_RATE_LIMIT } from '#contracts/chat-transfer.ts'
import { chatImportResultSchema } from '#contracts/chat-transfer-schemas.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, privately, signedInUser } from '#server/lib/signed-in.ts'
import { attachmentDisposition } from '#server/modules/characters/card-mapping.ts'
import { acceptMultipart, readFormData, uploadOf } from '#server/modules/characters/multipart.ts'
import type { ChatTransfer } from './chat-transfer.service.ts'

const security = [{ bearer: [] }]
/** The file at its limit plus the multipart envelope. */
const IMPORT_BODY_LIMIT = CHAT_IMPORT_LIMITS.fileBytes + 1024 * 1024

const exportParams = z.object({ sessionId: z.string().max(64) })
const exportQuery = z.object({ format: z.enum(CHAT_EXPORT_FORMATS).default('sillytavern') })
const importQuery = z.object({ roleId: z.string().min(1).max(64) })

/** A chat's history in and out (ADR 051), registered beside the chat's routes. */
export function chatTransferRoutes(transfer: ChatTransfer, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    acceptMultipart(app)

    app.get(
      '/chat/sessions/:sessionId/export',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "Download one of my chats as SillyTavern's JSONL chat file (format=sillytavern: every swipe kept) or as Markdown to read (format=markdown)",
          security,
          params: exportParams,
          querystring: exportQuery,
        },
      },
      async (request, reply) => {
        const file = await transfer.exportChat(signedInUser(request), request.params.sessionId, request.query.format)
        privately(reply)
        // The character's name in its own script, with an ASCII fallback (RFC 6266, RFC 5987).
        reply.header('content-disposition', attachmentDisposition(file.fileName))
        return reply.type(file.type).send(file.text)
      },
    )

    app.post(
      '/chat/import',
      {
        preHandler: app.requireUser,
        bodyLimit: IMPORT_BODY_LIMIT,
        schema: {
          tags: ['chat'],
          summary: 'Import a SillyTavern JSONL chat file as a new chat with a character I may chat with',
          description:
            'multipart/form-data with one file part `file`; `roleId`: the character. 10 MiB, 10,000 messages, 256 swipes a message, 100,000 characters a text. Imported messages are marked `imported` and cost nothing; hidden (`is_system`) and empty messages are left out. A file that is not a SillyTavern chat answers 400 INVALID_CHAT_FILE (413 PAYLOAD_TOO_LARGE for sizes) with details.reason and, where it helps, details.line; nothing is stored then.',
          consumes: ['multipart/form-data'],
          security,
          querystring: importQuery,
          response: { 200: okSchema(chatImportResultSchema) },
        },
      },
      async (request) => {
        const userId = await limitedUser(kv, request, 'chat-import:user', CHAT_IMPORT_RATE_LIMIT)
        const file = await uploadOf((await readFormData(request)).get('file'))
        if (!file) {
          throw new AppError(400, 'INVALID_CHAT_FILE', 'Send the chat as the file part `file`.', {
            reason: 'empty_file',
          })
        }
        if (file.size > CHAT_IMPORT_LIMITS.fileBytes) {
          throw new AppError(413, 'PAYLOAD_TOO_LARGE', 'The chat file is over the size limit.', {
            reason: 'too_large',
            field: 'file',
            limit: CHAT_IMPORT_LIMITS.fileBytes,
          })
        }
        const adult = request.cookies[ADULT_COOKIE] === '1'
        return ok(await transfer.importSillyTavern(userId, request.query.roleId, file.bytes, adult))
      },
    )
  }
}
