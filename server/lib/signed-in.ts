import type { FastifyInstance } from 'fastify'
import { AppError } from './errors.ts'
import type { KeyValueStore } from './key-value-store.ts'
import { enforceLimit, type Limit } from './rate-limit.ts'

/** What a route handler knows of its caller (`request.userId`, set by the authentication plugin). */
type Caller = { userId?: string | null | undefined }

/**
 * The preambles of a route that serves the signed-in user their own things (lorebooks, personas,
 * chats): one owner so every such route reads its user, limits changes and keeps replies out of
 * shared caches the same way.
 */

/**
 * The signed-in user's id. The route declares `app.requireUser`, which refuses a stranger before
 * the body is read; this is the handler's typed read of it, and a 401 (never an empty id) if the
 * route forgot the check.
 */
export function signedInUser(request: Caller): string {
  if (!request.userId) throw AppError.unauthorized()
  return request.userId
}

/** The signed-in user of a call that changes their things, counted under `${key}:${userId}` (429 over `limit`). */
export async function limitedUser(kv: KeyValueStore, request: Caller, key: string, limit: Limit): Promise<string> {
  const userId = signedInUser(request)
  await enforceLimit(kv, `${key}:${userId}`, limit)
  return userId
}

/**
 * The options of a route of the signed-in user's own things: their token checked first
 * (`app.requireUser`, before the body is read), documented under `tag` with `summary`.
 */
export function ownRoutes(app: Pick<FastifyInstance, 'requireUser'>, tag: string) {
  return <S extends object>(summary: string, schema: S) => ({
    preHandler: app.requireUser,
    schema: { tags: [tag], summary, ...schema },
  })
}

/** What a user reads of their own is theirs alone: never kept by a cache on the way. */
export function privately(reply: { header(name: string, value: string): unknown }): void {
  reply.header('cache-control', 'private, no-store')
}
