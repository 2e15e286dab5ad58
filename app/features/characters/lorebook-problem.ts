import type { TFunction } from 'i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { LOREBOOK_IMPORT_ERRORS } from '#contracts/lorebooks.ts'

/**
 * Why a lorebook file was not kept, in the user's words: the server's `details.reason`
 * (INVALID_LOREBOOK, or 413 for sizes) as `characters-edit:lorebookErrors.<reason>`, else the
 * common words of the error's code.
 */
export function lorebookImportProblem(t: TFunction<'characters-edit'>, tCommon: TFunction, failure: unknown): string {
  const words = (details: { reason?: string } | undefined) =>
    details && (LOREBOOK_IMPORT_ERRORS as readonly (string | undefined)[]).includes(details.reason)
      ? t(`lorebookErrors.${details.reason as (typeof LOREBOOK_IMPORT_ERRORS)[number]}`)
      : undefined
  return apiErrorMessage(tCommon, failure, {
    own: {
      INVALID_LOREBOOK: words,
      PAYLOAD_TOO_LARGE: (details) => (details && !Array.isArray(details) ? words(details) : undefined),
    },
  })
}
