import type { TFunction } from 'i18next'
import { ApiError } from '#app/lib/http.ts'
import { ERROR_CODES, type ErrorCode } from '#contracts/api.ts'
import type { ErrorDetails } from '#contracts/api-errors.ts'

/**
 * A page's own words for some codes, computed from the code's typed details. Returning
 * `undefined` leaves the code to the common words (`apiErrors.<CODE>` of common.json).
 */
export type OwnWords = { [C in ErrorCode]?: (details: ErrorDetails<C>) => string | undefined }

export type MessageOptions = {
  own?: OwnWords
  /**
   * The page's words for a failure that is not the request's fault: the server or the line failed
   * (INTERNAL_ERROR, SERVICE_UNAVAILABLE, NETWORK_ERROR, TIMEOUT), an unknown code, or not an API
   * error at all. The spec words these per page ('Login failed, please try again later').
   */
  otherwise?: string
}

/** Codes that say the server or the connection failed, not what was asked. */
const SERVER_FAILURES: readonly ErrorCode[] = ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'NETWORK_ERROR', 'TIMEOUT']

export const isErrorCode = (code: string): code is ErrorCode => (ERROR_CODES as readonly string[]).includes(code)

/**
 * The one place that turns a failed call into words for the user, in their language. `t` is the
 * common namespace's; every code has its words there, so a new code is worded everywhere at once.
 */
export function apiErrorMessage(t: TFunction, error: unknown, options: MessageOptions = {}): string {
  if (error instanceof ApiError) return errorCodeMessage(t, error.error, error.details, options)
  return options.otherwise ?? t('apiErrors.unknown')
}

/** The same for an error known by its code and details only (the `error` event of a chat stream). */
export function errorCodeMessage(t: TFunction, code: string, details: unknown, options: MessageOptions = {}): string {
  if (!isErrorCode(code)) return options.otherwise ?? t('apiErrors.unknown')
  // The details belong to this code (contracts/api-errors.ts); the map's type cannot say so per key.
  const own = (options.own?.[code] as ((details: unknown) => string | undefined) | undefined)?.(details)
  if (own !== undefined) return own
  if (options.otherwise !== undefined && SERVER_FAILURES.includes(code)) return options.otherwise
  return t(`apiErrors.${code}`)
}
