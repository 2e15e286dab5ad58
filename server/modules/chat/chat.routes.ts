// Over 400 lines for a reason: 20 routes, each mostly its zod schema and OpenAPI summary, plus the
// two ways a turn is answered (JSON, server-sent events). No rule lives here; the chat's logic is
// in the files listed at the top of chat.service.ts.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import {
  CHAT_CREATE_SESSION_LIMIT,
  CHAT_MEMORY_UPDATE_LIMIT,
  CHAT_SEND_LIMIT,
  CHAT_SETTINGS_UPDATE_LIMIT,
  CHAT_SUMMARY_RETRY_LIMIT,
} from '#contracts/chat.ts'
import {
  chatBody,
  chatMessageSchema,
  chatReplySchema,
  chatSessionDetailSchema,
  chatSessionListSchema,
  chatSettingsSchema,
  createdSessionSchema,
  createSessionBody,
  editedMessageSchema,
  editMessageBody,
  memorySchema,
  messagePageSchema,
  messageRefBody,
  messagesBody,
  regenerateBody,
  selectSwipeBody,
  sessionBody,
  sessionRef,
  sessionRefLoose,
  sessionsBody,
  swipeListSchema,
  updateMemoryBody,
  updateSettingsBody,
} from '#contracts/chat-schemas.ts'
import { CHAT_TIDY_LIMIT } from '#contracts/chat-tidy.ts'
import { deletedSessionSchema } from '#contracts/chat-tidy-schemas.ts'
import { isLocale, LOCALE_COOKIE, type Locale } from '#contracts/locales.ts'
import { isDatabaseUnavailable } from '#server/lib/database-errors.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { type ChatService, invalidSession, type TurnHooks, type TurnOutcome } from './chat.service.ts'
import { openEventStream } from './event-stream.ts'

const security = [{ bearer: [] }]
/** A POST without a body (Fastify hands null) reads as an empty object, so the defaults apply. */
const optionalBody = <T extends z.ZodType>(schema: T) => z.preprocess((value) => value ?? {}, schema)
const adultCookie = (request: FastifyRequest) => request.cookies[ADULT_COOKIE] === '1'

/** Aborts when the client goes away before the answer is complete (closed tab, stop button, timeout). */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  return controller.signal
}

type Turn = (hooks: TurnHooks) => Promise<TurnOutcome>

/** Runs a turn for a JSON caller: the stored reply, or the failure as an error envelope. */
export async function answerJson(reply: FastifyReply, turn: Turn) {
  const outcome = await turn({ signal: disconnectSignal(reply), onStart() {}, onDelta() {} })
  if (outcome.kind === 'failed') throw outcome.error
  if (outcome.kind === 'stopped' && !outcome.result) {
    throw new AppError(409, 'MODEL_ERROR', 'The reply was stopped before any text arrived.', {
      kind: 'aborted',
      partialKept: false,
      reply: null,
    })
  }
  return ok((outcome.result ?? null) as z.infer<typeof chatReplySchema>)
}

/**
 * Runs a turn as server-sent events. Until the user's message is stored, a refusal is an ordinary
 * JSON error; from then on everything, failures included, is an event of the stream.
 */
export async function answerStream(request: FastifyRequest, reply: FastifyReply, keepAliveMs: number, turn: Turn) {
  let stream: ReturnType<typeof openEventStream> | undefined
  let userMessageId: number | null = null
  try {
    const outcome = await turn({
      signal: disconnectSignal(reply),
      onStart(start) {
        userMessageId = start.userMessage?.id ?? null
        stream = openEventStream(reply, keepAliveMs)
        stream.send('start', start)
      },
      onDelta(text) {
        stream?.send('delta', { text })
      },
      onReasoning(text) {
        stream?.send('reasoning', { text })
      },
    })
    if (!stream) throw new Error('turn ended without starting')
    if (outcome.kind === 'done') stream.send('done', outcome.result)
    else if (outcome.kind === 'stopped')
      stream.send('stopped', { reply: outcome.reply, partialKept: Boolean(outcome.reply) })
    else stream.send('error', outcome.event)
    stream.end()
  } catch (error) {
    if (!stream) throw error
    // The database went away mid-turn (a restart): the reply was not stored, and retrying later works.
    const unavailable = isDatabaseUnavailable(error)
    if (unavailable) request.log.warn({ err: error }, 'chat stream failed: database unavailable')
    else request.log.error({ err: error }, 'chat stream failed')
    stream.send('error', {
      code: unavailable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR',
      kind: null,
      reason: null,
      retryable: true,
      message: unavailable ? 'The service is unavailable right now. Please try again.' : 'Internal server error',
      partialKept: false,
      reply: null,
      userMessageId,
    })
    stream.end()
  }
  return reply
}

const streamResponse = {
  200: z.string().describe('text/event-stream: start, reasoning* and delta*, then one of done, stopped, error'),
}

/** `keepAliveMs`: how often an open reply stream gets a keep-alive comment (CHAT_STREAM_KEEPALIVE_MS). */
export function chatRoutes(chat: ChatService, kv: KeyValueStore, keepAliveMs: number): FastifyPluginAsyncZod {
  return async (app) => {
    const userOf = (request: FastifyRequest) => request.userId ?? ''
    /** A turn's body with the interface's language: the client's, else the `lang` cookie (ADR 038). */
    const withLocale = <T extends { locale?: Locale | undefined }>(request: FastifyRequest, body: T): T => {
      const cookie = request.cookies[LOCALE_COOKIE]
      return { ...body, locale: body.locale ?? (isLocale(cookie) ? cookie : undefined) }
    }
    const limitSending = (request: FastifyRequest) => enforceLimit(kv, `chat:user:${userOf(request)}`, CHAT_SEND_LIMIT)
    /** The session id from the body or, as the spec has it for /api/session, the query. */
    const sessionIdOf = (request: {
      body: { sessionId?: string | undefined }
      query: { sessionId?: string | undefined }
    }) => {
      const id = request.body.sessionId ?? request.query.sessionId
      if (!id) throw invalidSession()
      return id
    }

    app.post(
      '/createSession',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: "Start a chat with a character; its first message is the character's greeting",
          security,
          body: createSessionBody,
          response: { 200: okSchema(createdSessionSchema) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `chat-create:user:${userOf(request)}`, CHAT_CREATE_SESSION_LIMIT)
        const { roleId, locale } = withLocale(request, request.body)
        return ok(await chat.createSession(userOf(request), roleId, adultCookie(request), locale))
      },
    )

    app.post(
      '/sessions',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "The user's chats: pinned first, then most recently active; chats holding only the greeting left out",
          security,
          body: optionalBody(sessionsBody),
          response: { 200: okSchema(chatSessionListSchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        const { page, pageSize } = request.body
        const { locale } = withLocale(request, request.body)
        return ok(await chat.listSessions(userOf(request), page, pageSize, adultCookie(request), locale))
      },
    )

    app.post(
      '/session',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'One chat: character, memory note, context gauge (sessionId in the body or the query)',
          security,
          querystring: sessionRefLoose,
          body: optionalBody(sessionBody),
          response: { 200: okSchema(chatSessionDetailSchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        return ok(
          await chat.getSession(userOf(request), sessionIdOf(request), {
            chatModelId: request.body.chatModelId,
            adultCookie: adultCookie(request),
            locale: withLocale(request, request.body).locale,
          }),
        )
      },
    )

    app.post(
      '/messages',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Messages of a chat, newest first; pass nextBefore as before for older ones',
          security,
          querystring: sessionRefLoose,
          body: optionalBody(messagesBody),
          response: { 200: okSchema(messagePageSchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        const { before, limit } = request.body
        return ok(await chat.listMessages(userOf(request), sessionIdOf(request), before, limit))
      },
    )

    app.post(
      '/chat',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Send a message and wait for the whole reply (data.content)',
          security,
          body: chatBody,
          response: { 200: okSchema(chatReplySchema) },
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerJson(reply, (hooks) => chat.send(userOf(request), withLocale(request, request.body), hooks))
      },
    )

    app.post(
      '/chat/stream',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Send a message; the reply streams as server-sent events',
          security,
          body: chatBody,
          response: streamResponse,
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerStream(request, reply, keepAliveMs, (hooks) =>
          chat.send(userOf(request), withLocale(request, request.body), hooks),
        )
      },
    )

    app.post(
      '/chat/regenerate',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'A new alternative of the last reply, or the reply a last user message never got (retry)',
          security,
          body: regenerateBody,
          response: { 200: okSchema(chatReplySchema) },
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerJson(reply, (hooks) => chat.regenerate(userOf(request), withLocale(request, request.body), hooks))
      },
    )

    app.post(
      '/chat/regenerate/stream',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Regenerate, streamed as server-sent events',
          security,
          body: regenerateBody,
          response: streamResponse,
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerStream(request, reply, keepAliveMs, (hooks) =>
          chat.regenerate(userOf(request), withLocale(request, request.body), hooks),
        )
      },
    )

    app.post(
      '/chat/continue',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Continue the last reply (one cut at its length): the model extends the alternative shown',
          security,
          body: regenerateBody,
          response: { 200: okSchema(chatReplySchema) },
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerJson(reply, (hooks) => chat.continue(userOf(request), withLocale(request, request.body), hooks))
      },
    )

    app.post(
      '/chat/continue/stream',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Continue, streamed as server-sent events (the deltas are the continuation)',
          security,
          body: regenerateBody,
          response: streamResponse,
        },
      },
      async (request, reply) => {
        await limitSending(request)
        return answerStream(request, reply, keepAliveMs, (hooks) =>
          chat.continue(userOf(request), withLocale(request, request.body), hooks),
        )
      },
    )

    app.post(
      '/chat/stop',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Stop the reply being written; the text so far is kept as an interrupted reply',
          security,
          body: sessionRef,
          response: { 200: okSchema(z.object({ stopped: z.boolean() })) },
        },
      },
      async (request) => ok({ stopped: await chat.stop(userOf(request), request.body.sessionId) }),
    )

    app.post(
      '/chat/swipes',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Every alternative of a reply (for the greeting: the character’s greetings)',
          security,
          body: messageRefBody,
          response: { 200: okSchema(swipeListSchema) },
        },
      },
      async (request) => {
        const { sessionId, messageId } = request.body
        return ok(await chat.listSwipes(userOf(request), sessionId, messageId))
      },
    )

    app.post(
      '/chat/selectSwipe',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Show another alternative of a reply',
          security,
          body: selectSwipeBody,
          response: { 200: okSchema(z.object({ message: chatMessageSchema })) },
        },
      },
      async (request) => {
        const { sessionId, messageId, swipeIndex } = request.body
        return ok({ message: await chat.selectSwipe(userOf(request), sessionId, messageId, swipeIndex) })
      },
    )

    app.post(
      '/chat/editMessage',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Edit one of your messages; later messages are removed (regenerate to get the new reply)',
          security,
          body: editMessageBody,
          response: { 200: okSchema(editedMessageSchema) },
        },
      },
      async (request) => {
        const { sessionId, messageId, content } = request.body
        return ok(await chat.editMessage(userOf(request), sessionId, messageId, content))
      },
    )

    app.post(
      '/chat/deleteMessage',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Delete one message (with all its alternatives)',
          security,
          body: messageRefBody,
          response: { 200: okSchema(z.object({ deleted: z.literal(true) })) },
        },
      },
      async (request) => {
        const { sessionId, messageId } = request.body
        return ok(await chat.deleteMessage(userOf(request), sessionId, messageId))
      },
    )

    app.post(
      '/deleteSession',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Delete a chat and all its messages (restorable for 10 s by /api/chat/session/restore, ADR 048)',
          security,
          body: sessionRef,
          response: { 200: okSchema(deletedSessionSchema) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `chat-tidy:user:${userOf(request)}`, CHAT_TIDY_LIMIT)
        return ok(await chat.deleteSession(userOf(request), request.body.sessionId))
      },
    )

    app.post(
      '/session/memory',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'The memory note of a chat',
          security,
          body: sessionRef,
          response: { 200: okSchema(memorySchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'private, no-store')
        return ok(await chat.getMemory(userOf(request), request.body.sessionId))
      },
    )

    app.post(
      '/session/memory/update',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Replace the memory note of a chat',
          security,
          body: updateMemoryBody,
          response: { 200: okSchema(memorySchema) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `chat-memory:user:${userOf(request)}`, CHAT_MEMORY_UPDATE_LIMIT)
        const { sessionId, note } = request.body
        return ok(await chat.updateMemory(userOf(request), sessionId, note))
      },
    )

    app.post(
      '/session/settings/update',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary:
            "Set a chat's temperature and reply length within the bounds of its model (null: the model's default)",
          security,
          body: updateSettingsBody,
          response: { 200: okSchema(chatSettingsSchema) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `chat-settings:user:${userOf(request)}`, CHAT_SETTINGS_UPDATE_LIMIT)
        const { sessionId, ...settings } = request.body
        return ok(await chat.updateSettings(userOf(request), sessionId, settings))
      },
    )

    app.post(
      '/session/memory/retry',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['chat'],
          summary: 'Run the memory summary of a chat again now, after it failed (ADR 034)',
          description:
            'queued: false when no summary waits for the chat or one is running right now. Limited per user.',
          security,
          body: sessionRef,
          response: { 200: okSchema(z.object({ queued: z.boolean(), memory: memorySchema })) },
        },
      },
      async (request) => {
        await enforceLimit(kv, `chat-summary-retry:user:${userOf(request)}`, CHAT_SUMMARY_RETRY_LIMIT)
        return ok(await chat.retrySummary(userOf(request), request.body.sessionId))
      },
    )
  }
}
