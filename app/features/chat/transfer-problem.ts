import type { TFunction } from 'i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { CHAT_IMPORT_ERRORS, type ChatImportError } from '#contracts/chat-transfer.ts'

/**
 * Why a chat file was not imported, in the user's words: the server's `details.reason`
 * (INVALID_CHAT_FILE, or 413 for sizes) as `chat:transfer.errors.<reason>` with its line, else
 * the common words of the error's code.
 */
export function chatImportProblem(t: TFunction<'chat'>, tCommon: TFunction, failure: unknown): string {
  const words = (details: unknown) => {
    if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined
    const { reason, line } = details as { reason?: unknown; line?: unknown }
    if (!(CHAT_IMPORT_ERRORS as readonly unknown[]).includes(reason)) return undefined
    return t(`transfer.errors.${reason as ChatImportError}`, { line: typeof line === 'number' ? line : '?' })
  }
  return apiErrorMessage(tCommon, failure, { own: { INVALID_CHAT_FILE: words, PAYLOAD_TOO_LARGE: words } })
}
