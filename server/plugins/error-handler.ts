import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import type { ErrorCode, ErrorEnvelope } from '#contracts/api.ts'
import { isDatabaseUnavailable } from '#server/lib/database-errors.ts'
import { AppError } from '#server/lib/errors.ts'

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
}

export function errorEnvelope(status: number, error: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined
    ? { code: status, success: false, error, message }
    : { code: status, success: false, error, message, details }
}

/**
 * The ids a refused request named (path parameters, and `...Id` fields of its query and body),
 * for the `access.refused` security event: enough to see one account probing others' chats,
 * characters or orders. Ids only, never other values.
 */
function requestedIds(request: FastifyRequest): Record<string, string> {
  const ids: Record<string, string> = {}
  const sources = [request.params, request.query, request.body]
  for (const source of sources) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue
    for (const [key, value] of Object.entries(source)) {
      const isId = source === request.params || /^(id|[a-z]+Id)$/.test(key)
      if (!isId || (typeof value !== 'string' && typeof value !== 'number')) continue
      const text = String(value)
      if (text.length <= 64 && Object.keys(ids).length < 5) ids[key] = text
    }
  }
  return ids
}

/** One error handler for the whole app: every failure leaves as the error envelope. */
export default fp(
  async function errorHandler(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof AppError) {
        if (error.status >= 500) request.log.error({ err: error }, error.message)
        // ASVS 7.2.2: a signed-in user refused a resource (not theirs, gated, or not there — the
        // answer does not say which, so neither does the event) is a security event.
        if ((error.status === 403 || error.status === 404) && request.userId) {
          request.log.warn(
            {
              event: 'access.refused',
              userId: request.userId,
              route: `${request.method} ${request.routeOptions.url ?? ''}`,
              status: error.status,
              code: error.code,
              ids: requestedIds(request),
            },
            'security event',
          )
        }
        const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
        if (error.status === 429 && retryAfter) reply.header('retry-after', String(retryAfter))
        return reply.status(error.status).send(errorEnvelope(error.status, error.code, error.message, error.details))
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        const details = error.validation.map((v) => ({
          path: v.instancePath.replace(/^\//, '').replaceAll('/', '.'),
          message: v.message ?? 'invalid',
          in: error.validationContext,
        }))
        return reply.status(400).send(errorEnvelope(400, 'VALIDATION_ERROR', 'The request is not valid.', details))
      }
      if (isResponseSerializationError(error)) {
        request.log.error({ err: error, cause: error.cause }, 'response did not match its schema')
        return reply.status(500).send(errorEnvelope(500, 'INTERNAL_ERROR', 'Internal server error'))
      }
      if (isDatabaseUnavailable(error)) {
        // A database restart or outage: the request may work in a moment, and the pool reconnects
        // by itself. The browser shows its localized apiErrors.SERVICE_UNAVAILABLE text.
        request.log.warn({ err: error }, 'database unavailable')
        reply.header('retry-after', '5')
        return reply
          .status(503)
          .send(errorEnvelope(503, 'SERVICE_UNAVAILABLE', 'The service is unavailable right now. Please try again.'))
      }
      const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
      if (status >= 500) {
        // Internals stay in the log; the client learns only that it failed.
        request.log.error({ err: error }, 'request failed')
        return reply.status(status).send(errorEnvelope(status, 'INTERNAL_ERROR', 'Internal server error'))
      }
      const code = STATUS_CODES[status] ?? 'BAD_REQUEST'
      if (status === 429 && !reply.getHeader('retry-after')) reply.header('retry-after', '60')
      return reply.status(status).send(errorEnvelope(status, code, error.message))
    })

    app.setNotFoundHandler((request, reply) => {
      return reply
        .status(404)
        .send(errorEnvelope(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`))
    })
  },
  { name: 'error-handler' },
)
