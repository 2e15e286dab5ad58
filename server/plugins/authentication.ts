import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '#server/lib/errors.ts'
import { DELETED_USER_KEY } from '#server/modules/account/account.service.ts'
import { type AccessTokens, endedByMark, TOKENS_ENDED_KEY } from '#server/modules/auth/access-token.ts'

declare module 'fastify' {
  interface FastifyInstance {
    accessTokens: AccessTokens
    /**
     * For routes that need a signed-in user: 401 without a valid bearer token. Declared as the
     * route's `preHandler` (or `onRequest`); it always runs in onRequest (see the onRoute hook).
     */
    requireUser(request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
  interface FastifyRequest {
    /** The signed-in user's id, when the request carried a valid access token. */
    userId: string | null
  }
}

/** Reads `Authorization: Bearer <access token>` on every request; routes opt in to requiring it. */
export default fp(
  async function authentication(app: FastifyInstance, options: { accessTokens: AccessTokens }) {
    app.decorate('accessTokens', options.accessTokens)
    app.decorateRequest('userId', null)
    app.addHook('onRequest', async (request) => {
      const header = request.headers.authorization
      if (!header?.startsWith('Bearer ')) return
      const claims = await app.accessTokens.verify(header.slice('Bearer '.length).trim())
      if (!claims) return
      // A signed token stays valid until it expires: refuse it when its account was deleted, or
      // when its user logged out everywhere after it was issued (ADR 015, ADR 021). Asked on every
      // request, also for tokens whose signature check was cached. Both reads go out together.
      const [deleted, tokensEnded] = await Promise.all([
        app.kv.get(DELETED_USER_KEY(claims.userId)),
        app.kv.get(TOKENS_ENDED_KEY(claims.userId)),
      ])
      if (deleted || endedByMark(claims.issuedAtMs, tokensEnded)) return
      request.userId = claims.userId
    })
    const requireUser = async (request: FastifyRequest) => {
      if (!request.userId) throw AppError.unauthorized()
    }
    app.decorate('requireUser', requireUser)
    // A route that needs a user refuses a stranger before anything else of the request is read:
    // in onRequest, so before the body is received and parsed (an anonymous 20 MB card import
    // would otherwise be buffered whole before its 401) and before it is validated (a bad body
    // would answer 400 and tell a stranger about the route's schema). Fastify runs preHandler
    // after both, so requireUser moves from preHandler to the end of the route's onRequest hooks,
    // after this plugin's own onRequest hook that read the token.
    app.addHook('onRoute', (route) => {
      const preHandlers = asArray(route.preHandler)
      if (!preHandlers.includes(requireUser)) return
      route.preHandler = preHandlers.filter((hook) => hook !== requireUser)
      route.onRequest = [...asArray(route.onRequest), requireUser]
    })
  },
  { name: 'authentication', dependencies: ['key-value-store'] },
)

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}
