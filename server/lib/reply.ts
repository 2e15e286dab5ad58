import type { z } from 'zod'
import { okEnvelope } from '#contracts/api-schemas.ts'

/** Wraps a payload in the success envelope of DESIGN.md. */
export function ok<T>(data: T) {
  return { code: 0 as const, success: true as const, message: 'ok' as const, data }
}

/** The response schema of a route whose data is `schema`, for validation and the OpenAPI document. */
export function okSchema<T extends z.ZodType>(schema: T) {
  return okEnvelope(schema)
}
