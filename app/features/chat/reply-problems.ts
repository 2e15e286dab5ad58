import type { TFunction } from 'i18next'
import { apiErrorMessage, errorCodeMessage } from '#app/lib/api-error-message.ts'
import { ApiError } from '#app/lib/http.ts'
import type { ChatMessage, ChatStreamEvent } from '#contracts/chat.ts'

/** What the Connection Error dialog shows (spec section 3), and whether Retry is offered. */
export type Problem = { message: string; details: string; retry: boolean }

type FailedReply = Extract<ChatStreamEvent, { event: 'error' }>['data']

/** A message the server stored (again) replaces its copy and goes to the end of the conversation. */
export const withMessage = (list: ChatMessage[], message: ChatMessage): ChatMessage[] => [
  ...list.filter((m) => m.id !== message.id),
  message,
]

/**
 * A reply that failed while it was written (the stream's `error` event). Its code is worded like
 * any API error; without diamonds there is nothing to retry until the balance changes.
 */
export function failedReplyProblem(t: TFunction<'chat'>, tCommon: TFunction, failure: FailedReply): Problem {
  const reason = errorCodeMessage(tCommon, failure.code, failure)
  const noDiamonds = failure.code === 'INSUFFICIENT_DIAMONDS'
  return {
    message: noDiamonds ? reason : `${t('errors.messageFailed')}: ${reason}`,
    details: [failure.code, failure.kind, failure.message].filter(Boolean).join(' · '),
    retry: !noDiamonds,
  }
}

/**
 * A send refused before the reply started (4xx: 'Send failed', nothing to retry as is) or a stream
 * that broke off (the server or the line: 'Message sending failed', with Retry).
 */
export function refusedReplyProblem(t: TFunction<'chat'>, tCommon: TFunction, error: unknown): Problem {
  const refused = error instanceof ApiError && error.code >= 400 && error.code < 500
  return {
    message: `${t(refused ? 'errors.sendFailed' : 'errors.messageFailed')}: ${apiErrorMessage(tCommon, error)}`,
    details:
      error instanceof ApiError
        ? `${error.error}: ${error.message}`
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error),
    retry: !refused,
  }
}

/** What a swipe arrow does: show another stored alternative, write a new one, or nothing. */
export function swipeStep(
  message: Pick<ChatMessage, 'swipeIndex' | 'swipeCount' | 'modelId'>,
  direction: -1 | 1,
): { kind: 'select'; index: number } | { kind: 'regenerate' } | { kind: 'none' } {
  const next = message.swipeIndex + direction
  if (next < message.swipeCount) return { kind: 'select', index: next }
  // Past the last alternative a new one is written, for replies; greetings are a fixed set.
  return message.modelId !== null ? { kind: 'regenerate' } : { kind: 'none' }
}
