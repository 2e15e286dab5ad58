import type { TFunction } from 'i18next'
import { ApiError } from '#app/lib/http.ts'
import { ERROR_CODES, type ErrorCode } from '#contracts/api.ts'

/** The one place that turns a failed call into words for the user, in their language. */
export function apiErrorMessage(t: TFunction, error: unknown): string {
  if (error instanceof ApiError && (ERROR_CODES as readonly string[]).includes(error.error)) {
    return t(`apiErrors.${error.error as ErrorCode}`)
  }
  return t('apiErrors.unknown')
}
