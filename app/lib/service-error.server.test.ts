import { describe, expect, it } from 'vitest'
import { AppError } from '#server/lib/errors.ts'
import { isServiceError } from './service-error.server.ts'

describe('isServiceError — a loader reads a service refusal by its code, not its shape', () => {
  it("narrows a service's AppError to its code's typed details", () => {
    const error: unknown = new AppError(400, 'VALIDATION_ERROR', 'past the end', [{ path: 'page', lastPage: 4 }])
    expect(isServiceError(error, 'VALIDATION_ERROR') ? error.details?.[0]?.lastPage : null).toBe(4)
    expect(isServiceError(error, 'NOT_FOUND')).toBe(false)
  })

  // The catalogue loader redirected on anything with `status: 400` and `details[0].path`.
  it('refuses look-alikes: an object with the same fields is not a service refusal', () => {
    const lookAlike = { status: 400, code: 'VALIDATION_ERROR', details: [{ path: 'page', lastPage: 4 }] }
    expect(isServiceError(lookAlike, 'VALIDATION_ERROR')).toBe(false)
  })
})
