import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { CHAT_SEARCH_LIMIT, CHAT_TIDY_LIMIT } from '#contracts/chat-tidy.ts'
import {
  characterSessionsBody,
  characterSessionsSchema,
  chatSearchSchema,
  pinSessionBody,
  renameSessionBody,
  restoreSessionBody,
  searchChatsBody,
  tidiedSessionSchema,
} from '#contracts/chat-tidy-schemas.ts'
import { isLocale, LOCALE_COOKIE, type Locale } from '#contracts/locales.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { limitedUser, privately, signedInUser } from '#server/lib/signed-in.ts'
import type { ChatService } from './chat.service.ts'

const security = [{ bearer: [] }]

/** Find and tidy one's chats (ADR 048): search, rename, pin, undo a deletion, a character's chats. */
export function chatTidyRoutes(chat: ChatService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    const adultCookie = (request: FastifyRequest) => request.cookies[ADULT_COOKIE] === '1'
    /** The interface's language: the body's, else the `lang` cookie. */
    const localeOf = (request: FastifyRequest, locale: Locale | undefined) => {
      const cookie = request.cookies[LOCALE_COOKIE]
      return locale ?? (isLocale(cookie) ? cookie : undefined)
    }
    const tidyingUser = (request: FastifyRequest) => limitedUser(kv, request, 'chat-tidy:user', CHAT_TIDY_LIMIT)

    app.post(
      '/chat/search',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "Messages of the user's chats holding every word of `q` (CJK and Thai split into words), newest first, with a snippet",
          security,
          body: searchChatsBody,
          response: { 200: okSchema(chatSearchSchema) },
        },
      },
      async (request, reply) => {
        const userId = await limitedUser(kv, request, 'chat-search:user', CHAT_SEARCH_LIMIT)
        privately(reply)
        const { q, page, pageSize } = request.body
        const locale = localeOf(request, request.body.locale)
        return ok(await chat.searchChats(userId, { q, page, pageSize, locale }, adultCookie(request)))
      },
    )

    app.post(
      '/chat/sessions/character',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: "The user's chats with one character, most recently active first (the first is 'Continue')",
          security,
          body: characterSessionsBody,
          response: { 200: okSchema(characterSessionsSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { roleId, page, pageSize } = request.body
        const locale = localeOf(request, request.body.locale)
        return ok(
          await chat.sessionsWithCharacter(signedInUser(request), roleId, {
            page,
            pageSize,
            adultCookie: adultCookie(request),
            locale,
          }),
        )
      },
    )

    app.post(
      '/chat/session/rename',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: "Name a chat; a blank title gives it back its character's name",
          security,
          body: renameSessionBody,
          response: { 200: okSchema(tidiedSessionSchema) },
        },
      },
      async (request) => {
        return ok(await chat.renameSession(await tidyingUser(request), request.body.sessionId, request.body.title))
      },
    )

    app.post(
      '/chat/session/pin',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Pin a chat on top of My Chats, or unpin it',
          security,
          body: pinSessionBody,
          response: { 200: okSchema(tidiedSessionSchema) },
        },
      },
      async (request) => {
        return ok(await chat.pinSession(await tidyingUser(request), request.body.sessionId, request.body.pinned))
      },
    )

    app.post(
      '/chat/session/restore',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Undo a deletion within 10 seconds (410 CHAT_NOT_RESTORABLE after)',
          security,
          body: restoreSessionBody,
          response: { 200: okSchema(z.object({ restored: z.literal(true) })) },
        },
      },
      async (request) => {
        return ok(await chat.restoreSession(await tidyingUser(request), request.body.sessionId))
      },
    )
  }
}
