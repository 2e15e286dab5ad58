import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { CHAT_SEND_LIMIT, CHAT_SETTINGS_UPDATE_LIMIT } from '#contracts/chat.ts'
import { sceneAddBody, sceneModeBody, sceneRemoveBody, sceneSchema, speakBody } from '#contracts/chat-scenes-schemas.ts'
import { chatReplySchema, sessionRef } from '#contracts/chat-schemas.ts'
import { isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, privately, signedInUser } from '#server/lib/signed-in.ts'
import { answerJson, answerStream } from './chat.routes.ts'
import type { ChatService } from './chat.service.ts'

const security = [{ bearer: [] }]
const sceneResponse = { 200: okSchema(sceneSchema) }

/** Group scenes (ADR 052): members, the mode, and "Let … speak", registered beside the chat's own routes. */
export function chatScenesRoutes(chat: ChatService, kv: KeyValueStore, keepAliveMs: number): FastifyPluginAsyncZod {
  return async (app) => {
    const adult = (request: FastifyRequest) => request.cookies[ADULT_COOKIE] === '1'
    const limitChanges = (request: FastifyRequest) =>
      limitedUser(kv, request, 'chat-settings:user', CHAT_SETTINGS_UPDATE_LIMIT)
    const limitSending = (request: FastifyRequest) => limitedUser(kv, request, 'chat:user', CHAT_SEND_LIMIT)
    const speakInput = (request: FastifyRequest, body: z.infer<typeof speakBody>) => {
      const cookie = request.cookies[LOCALE_COOKIE]
      return { ...body, locale: body.locale ?? (isLocale(cookie) ? cookie : undefined) }
    }

    app.post(
      '/chat/scene',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'The characters of a chat and who speaks next',
          security,
          body: sessionRef,
          response: sceneResponse,
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await chat.scene(signedInUser(request), request.body.sessionId, adult(request)))
      },
    )

    app.post(
      '/chat/scene/add',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Add a character (public or your own) to the chat',
          security,
          body: sceneAddBody,
          response: sceneResponse,
        },
      },
      async (request) => {
        await limitChanges(request)
        const { sessionId, roleId } = request.body
        return ok(await chat.addSceneMember(signedInUser(request), sessionId, roleId, adult(request)))
      },
    )

    app.post(
      '/chat/scene/remove',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Remove a character from the scene (not the last one)',
          security,
          body: sceneRemoveBody,
          response: sceneResponse,
        },
      },
      async (request) => {
        await limitChanges(request)
        const { sessionId, roleId } = request.body
        return ok(await chat.removeSceneMember(signedInUser(request), sessionId, roleId, adult(request)))
      },
    )

    app.post(
      '/chat/scene/mode',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Who speaks next: manual, turns or natural',
          security,
          body: sceneModeBody,
          response: sceneResponse,
        },
      },
      async (request) => {
        await limitChanges(request)
        const { sessionId, mode } = request.body
        return ok(await chat.setSceneMode(signedInUser(request), sessionId, mode, adult(request)))
      },
    )

    app.post(
      '/chat/speak',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Let a member of the scene speak: a reply with no new user message, paid like any reply',
          security,
          body: speakBody,
          response: { 200: okSchema(chatReplySchema) },
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerJson(reply, (hooks) => chat.speak(signedInUser(request), speakInput(request, request.body), hooks))
      },
    )

    app.post(
      '/chat/speak/stream',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'As /chat/speak, the reply streamed as server-sent events',
          security,
          body: speakBody,
          response: { 200: z.string().describe('text/event-stream, as /chat/stream') },
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerStream(request, reply, keepAliveMs, (hooks) =>
          chat.speak(signedInUser(request), speakInput(request, request.body), hooks),
        )
      },
    )
  }
}
