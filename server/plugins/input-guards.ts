import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '#server/lib/errors.ts'

/**
 * Limits every request's input before any route sees it (issue 11):
 * - JSON bodies nested deeper than MAX_JSON_DEPTH are refused before they are parsed (no route takes
 *   more than a few levels; deep nesting only costs memory and stack), and `__proto__` /
 *   `constructor.prototype` keys are refused as before (Fastify's own parser does the parsing);
 * - text with a NUL character anywhere in the path parameters, query or JSON body is refused:
 *   PostgreSQL cannot store it, so it would otherwise fail deep inside a query.
 */

export const MAX_JSON_DEPTH = 32

/** True when `text` (JSON) opens more than `max` arrays or objects inside each other. */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 92 /* \ */) i++
      else if (ch === 34 /* " */) inString = false
    } else if (ch === 34) inString = true
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > max) return true
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--
  }
  return false
}

/** True when a string anywhere in `value` (objects and arrays; not binary bodies) holds U+0000. */
export function containsNul(value: unknown, budget = { nodes: 10_000 }): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (value === null || typeof value !== 'object' || --budget.nodes < 0) return false
  if (Array.isArray(value)) return value.some((item) => containsNul(item, budget))
  if (ArrayBuffer.isView(value)) return false
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000') || containsNul(item, budget)) return true
  }
  return false
}

export default fp(
  async function inputGuards(app: FastifyInstance) {
    const parseJson = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body)
      if (jsonDepthExceeds(text)) {
        done(AppError.badRequest(`JSON may not be nested more than ${MAX_JSON_DEPTH} levels deep`), undefined)
        return
      }
      parseJson(request, text, done)
    })
    app.addHook('preValidation', async (request) => {
      if (containsNul(request.params) || containsNul(request.query) || containsNul(request.body))
        throw new AppError(400, 'VALIDATION_ERROR', 'Text may not contain NUL characters')
    })
  },
  { name: 'input-guards' },
)
