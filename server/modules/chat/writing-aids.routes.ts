import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { CHAT_SEND_LIMIT, CHAT_SETTINGS_UPDATE_LIMIT } from '#contracts/chat.ts'
import { authorNoteSchema, impersonateBody, updateAuthorNoteBody } from '#contracts/chat-writing-aids-schemas.ts'
import { isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser } from '#server/lib/signed-in.ts'
import { disconnectSignal } from './chat.routes.ts'
import type { ChatService } from './chat.service.ts'
import { openEventStream } from './event-stream.ts'

const security = [{ bearer: [] }]

/** The author's note and impersonate (ADR 053), registered beside the chat's own routes. */
export function writingAidsRoutes(chat: ChatService, kv: KeyValueStore, keepAliveMs: number): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/session/author-note/update',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "Set a chat's author's note: a standing instruction placed `depth` messages before the end of every prompt",
          description:
            'text: at most 2,000 characters; depth: 0 (after the last message) to 100. Refused: 400 VALIDATION_ERROR, nothing changed.',
          security,
          body: updateAuthorNoteBody,
          response: { 200: okSchema(authorNoteSchema) },
        },
      },
      async (request) => {
        const userId = await limitedUser(kv, request, 'chat-settings:user', CHAT_SETTINGS_UPDATE_LIMIT)
        const { sessionId, text, depth } = request.body
        return ok(await chat.updateAuthorNote(userId, sessionId, { text, depth }))
      },
    )

    app.post(
      '/chat/impersonate/stream',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "Impersonate: the model drafts the user's next message (as the chat's persona), streamed as server-sent events; stored nowhere",
          description:
            'Events: start, delta*, then done ({ content, modelId, diamondsSpent, balance }), stopped ({ content }) or error. Costs what a reply of the model costs; counts with sends.',
          security,
          body: impersonateBody,
          response: { 200: z.string().describe('text/event-stream') },
        },
      },
      async (request, reply) => {
        const userId = await limitedUser(kv, request, 'chat:user', CHAT_SEND_LIMIT)
        const cookie = request.cookies[LOCALE_COOKIE]
        const locale = request.body.locale ?? (isLocale(cookie) ? cookie : undefined)
        let stream: ReturnType<typeof openEventStream> | undefined
        try {
          const outcome = await chat.impersonate(
            userId,
            { sessionId: request.body.sessionId, chatModelId: request.body.chatModelId, locale },
            {
              signal: disconnectSignal(reply),
              onStart(start) {
                stream = openEventStream(reply, keepAliveMs)
                stream.send('start', start)
              },
              onDelta(text) {
                stream?.send('delta', { text })
              },
            },
          )
          if (!stream) {
            if (outcome.kind === 'failed') throw outcome.error
            throw new Error('impersonate ended without starting')
          }
          if (outcome.kind === 'done') stream.send('done', outcome.result)
          else if (outcome.kind === 'stopped') stream.send('stopped', { content: outcome.content })
          else stream.send('error', outcome.event)
          stream.end()
        } catch (error) {
          if (!stream) throw error
          request.log.error({ err: error }, 'impersonate stream failed')
          stream.send('error', {
            code: 'INTERNAL_ERROR',
            kind: null,
            reason: null,
            retryable: true,
            message: 'Internal server error',
            partialKept: false,
            reply: null,
            userMessageId: null,
          })
          stream.end()
        }
        return reply
      },
    )
  }
}
