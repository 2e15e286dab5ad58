import type { ErrorCode } from '#contracts/api.ts'

/**
 * The one error type of the server. Services throw it; the error handler turns it into the
 * error envelope. `message` is English for logs and API users; the browser shows its own
 * localized text for `code`.
 */
export class AppError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly details: unknown

  constructor(status: number, code: ErrorCode, message: string, details?: unknown) {
    super(message)
    this.name = 'AppError'
    this.status = status
    this.code = code
    this.details = details
  }

  static badRequest(message: string, details?: unknown) {
    return new AppError(400, 'BAD_REQUEST', message, details)
  }
  static unauthorized(message = 'Authentication required') {
    return new AppError(401, 'UNAUTHORIZED', message)
  }
  static forbidden(message = 'Not allowed') {
    return new AppError(403, 'FORBIDDEN', message)
  }
  static notFound(message = 'Not found') {
    return new AppError(404, 'NOT_FOUND', message)
  }
  static conflict(message: string, details?: unknown) {
    return new AppError(409, 'CONFLICT', message, details)
  }
}
