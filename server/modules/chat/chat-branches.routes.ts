import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { CHAT_CREATE_SESSION_LIMIT } from '#contracts/chat.ts'
import { branchBody, branchLinksSchema, createdBranchSchema } from '#contracts/chat-branches.ts'
import { sessionRef } from '#contracts/chat-schemas.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, privately, signedInUser } from '#server/lib/signed-in.ts'
import type { ChatService } from './chat.service.ts'

const security = [{ bearer: [] }]

/** Branches of a chat (ADR 050), registered beside the chat's own routes. */
export function chatBranchesRoutes(chat: ChatService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/chat/branch',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            'Branch from here: a new chat with the history up to and including this message; the original is unchanged, no model is asked',
          security,
          body: branchBody,
          response: { 200: okSchema(createdBranchSchema) },
        },
      },
      async (request) => {
        // A branch is a new chat: it counts with the chats started.
        const userId = await limitedUser(kv, request, 'chat-create:user', CHAT_CREATE_SESSION_LIMIT)
        const { sessionId, messageId } = request.body
        return ok(await chat.branchFrom(userId, sessionId, messageId))
      },
    )

    app.post(
      '/chat/branches',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'The chat this one was branched from, and the chats branched from it',
          security,
          body: sessionRef,
          response: { 200: okSchema(branchLinksSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        return ok(await chat.branchLinks(signedInUser(request), request.body.sessionId))
      },
    )
  }
}
