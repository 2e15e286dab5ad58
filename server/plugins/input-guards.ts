import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '#server/lib/errors.ts'
import { MAX_JSON_DEPTH, scanJson } from '#server/lib/json-text.ts'

/**
 * Limits every request's input before any route sees it (issue 11):
 * - JSON bodies nested deeper than MAX_JSON_DEPTH are refused before they are parsed (no route takes
 *   more than a few levels; deep nesting only costs memory and stack), and `__proto__` /
 *   `constructor.prototype` keys are refused as before (Fastify's own parser does the parsing);
 * - a NUL character anywhere in the URL (`%00`) or in a JSON string (`\u0000`) is refused:
 *   PostgreSQL cannot store it, so it would otherwise fail deep inside a query. Both checks are
 *   single passes over text the server reads anyway (the chat's budget is a few milliseconds).
 */

const NUL_MESSAGE = 'Text may not contain NUL characters'

// `%00` anywhere in the URL is a NUL in a path parameter or the query once decoded.
const NUL_IN_URL = /%00/

export default fp(
  async function inputGuards(app: FastifyInstance) {
    const parseJson = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body)
      const problem = scanJson(text)
      if (problem === 'deep') {
        done(AppError.badRequest(`JSON may not be nested more than ${MAX_JSON_DEPTH} levels deep`), undefined)
        return
      }
      if (problem === 'nul') {
        done(new AppError(400, 'VALIDATION_ERROR', NUL_MESSAGE), undefined)
        return
      }
      parseJson(request, text, done)
    })
    // A callback hook, not an async one: it runs on every request, and the check is one regex.
    app.addHook('onRequest', (request, _reply, done) => {
      done(NUL_IN_URL.test(request.url) ? new AppError(400, 'VALIDATION_ERROR', NUL_MESSAGE) : undefined)
    })
  },
  { name: 'input-guards' },
)
