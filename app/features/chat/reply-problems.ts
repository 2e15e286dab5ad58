import type { TFunction } from 'i18next'
import { apiErrorMessage, errorCodeMessage } from '#app/lib/api-error-message.ts'
import { formatWait } from '#app/lib/format.ts'
import { ApiError } from '#app/lib/http.ts'
import type { ChatMessage, ChatStreamEvent } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

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
 * any API error (each model failure code has its own words), with when to try again if the model's
 * server said so. Retry is offered only when the server says a retry can help (`retryable`): not
 * for a model that is gone, refuses our key or the conversation, nor without diamonds.
 */
export function failedReplyProblem(
  t: TFunction<'chat'>,
  tCommon: TFunction,
  locale: Locale,
  failure: FailedReply,
): Problem {
  const reason = errorCodeMessage(tCommon, failure.code, failure)
  const noDiamonds = failure.code === 'INSUFFICIENT_DIAMONDS'
  const wait = failure.retryAfterSeconds
    ? ` ${t('errors.retryAfter', { when: formatWait(locale, failure.retryAfterSeconds) })}`
    : ''
  return {
    message: (noDiamonds ? reason : `${t('errors.messageFailed')}: ${reason}`) + wait,
    details: [failure.code, failure.kind, failure.message].filter(Boolean).join(' · '),
    retry: failure.retryable && !noDiamonds,
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

/**
 * The user message the conversation ends with, left without a reply (the model failed, the dialog
 * was closed, the page reloaded): it gets a Retry of its own. Null when the last message is a reply.
 */
export function strandedMessageId(messages: readonly Pick<ChatMessage, 'id' | 'author'>[]): number | null {
  const last = messages.at(-1)
  return last?.author === 'user' ? last.id : null
}
