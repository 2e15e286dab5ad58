import type { ErrorCode } from '#contracts/api.ts'
import type { ErrorDetails } from '#contracts/api-errors.ts'
import { AppError } from '#server/lib/errors.ts'

/** A service's refusal with code `C`, its `details` typed for that code (contracts/api-errors.ts). */
export type ServiceErrorOf<C extends ErrorCode> = AppError & { readonly code: C; readonly details: ErrorDetails<C> }

/**
 * Whether a loader's call into a service (through the load context) was refused with `code`.
 * Loaders run in the server process, so the error is the service's own AppError, not an envelope.
 */
export function isServiceError<C extends ErrorCode>(error: unknown, code: C): error is ServiceErrorOf<C> {
  return error instanceof AppError && error.code === code
}
