import type { ErrorCode } from './api.ts'
import type { CardImportError } from './characters.ts'
import type { ChatMessage, ModelFailureKind, ModelFailureReason } from './chat.ts'
import type { ChatImportError } from './chat-transfer.ts'
import type { LorebookImportError } from './lorebooks.ts'

/**
 * What `details` holds for each error code, so that the server's services, the pages' loaders and
 * the browser read it by type instead of guessing from its shape. A code missing here carries no
 * details. `undefined` in a union: the code is also thrown without details (by a generic helper).
 */

/** One refused input: from the schema validator (`path`, `message`, `in`) or a service's own check. */
export type RefusedField = {
  /** Dotted path of the field: `page`, `tags`, `alternateGreetings.2`. */
  path: string
  message?: string
  /** Where the field was: `body`, `querystring`, `params`. */
  in?: string
  /** A machine reason the form words itself (FIELD_PROBLEM_CODES of contracts/characters.ts). */
  code?: string
  limit?: number
  /** A page past the end of a list: the last page there is. */
  lastPage?: number
}

/**
 * A character card that could not be read (INVALID_CARD, or 413 for its sizes); a lorebook over its
 * sizes answers 413 with the same shape (`reason: 'too_large'`).
 */
export type CardProblem = { reason: CardImportError; field?: string; limit?: number }

/** A lorebook file that could not be kept (INVALID_LOREBOOK; its sizes answer 413 as a card's do). */
export type LorebookProblem = { reason: LorebookImportError; field?: string; limit?: number }

/** A chat file that could not be imported (INVALID_CHAT_FILE; its sizes answer 413 PAYLOAD_TOO_LARGE with `reason: 'too_large'`). */
export type ChatFileRefusal = { reason: ChatImportError; line?: number; field?: string; limit?: number }

/** A reply that failed while it was written (MODEL_ERROR, or SERVICE_UNAVAILABLE when the server stopped). */
export type ReplyFailure = {
  kind: ModelFailureKind | null
  reason?: ModelFailureReason | null
  /** Whether a retry can help. */
  retryable?: boolean
  /** The model provider's Retry-After, in seconds. */
  retryAfterSeconds?: number
  /** The text received before the failure was stored as an interrupted reply. */
  partialKept: boolean
  reply: ChatMessage | null
  userMessageId?: number | null
}

export type ErrorDetailsByCode = {
  VALIDATION_ERROR: RefusedField[] | undefined
  PAYLOAD_TOO_LARGE: RefusedField[] | CardProblem | undefined
  UNSUPPORTED_MEDIA_TYPE: RefusedField[] | undefined
  WEAK_PASSWORD: RefusedField[]
  USERNAME_TAKEN: RefusedField[]
  RATE_LIMITED: { retryAfterSeconds: number } | undefined
  /** The human check's own reason (a Turnstile or ALTCHA error code). */
  VERIFICATION_FAILED: { reason: string }
  FORBIDDEN: { reason: 'ADULT_CONTENT' } | undefined
  /** `own-account`: an operator may not suspend, delete or change the diamonds of their own account (ADR 055). */
  CONFLICT:
    | { reason: 'subscription-renews' | 'provider-refused' | 'not-renewable' | 'own-account' | 'no-creator' }
    | undefined
  INSUFFICIENT_DIAMONDS: { needed: number; balance?: number; userMessageId?: number | null }
  MESSAGE_TOO_LONG: { maxLength: number; length: number }
  MODEL_UNAVAILABLE: { chatModelId: string }
  PREMIUM_REQUIRES_PLAN: { chatModelId: string; planId: string }
  MODEL_ERROR: ReplyFailure
  MODEL_CONTEXT_TOO_LONG: ReplyFailure
  MODEL_NOT_FOUND: ReplyFailure
  MODEL_UNREACHABLE: ReplyFailure
  MODEL_CREDENTIALS_REFUSED: ReplyFailure
  MODEL_RATE_LIMITED: ReplyFailure
  MODEL_OVERLOADED: ReplyFailure
  MODEL_TEMPLATE_REFUSED: ReplyFailure
  MODEL_REPLY_ONLY_REASONING: ReplyFailure
  MODEL_PREPARING: ReplyFailure
  SERVICE_UNAVAILABLE: ReplyFailure | undefined
  INVALID_CARD: CardProblem
  INVALID_LOREBOOK: LorebookProblem
  INVALID_CHAT_FILE: ChatFileRefusal
  /** Machine translation is off (TRANSLATE_DAILY_CHARACTERS=0), or the model failed (`modelReason`). */
  TRANSLATION_UNAVAILABLE: { reason: 'disabled' | 'model'; modelReason?: ModelFailureReason | 'timeout' }
  /** The operator's daily budget of machine translation is used up until the next UTC day. */
  TRANSLATION_BUDGET_USED: { retryAfterSeconds: number }
  /** A chat setting outside the bounds of the chat's model (ADR 033). */
  CHAT_SETTING_OUT_OF_BOUNDS: { field: 'temperature' | 'replyTokens'; min: number; max: number }
  /** The operator does not let users change this setting for the chat's model. */
  CHAT_SETTING_LOCKED: { field: 'temperature' | 'replyTokens' }
  ALREADY_SUBSCRIBED: { planId: string }
  PLAN_CHANGE_NOT_ALLOWED: { reason: 'downgrade' | 'card-plan-renews' | 'one-off-plan-runs' }
  /** A refund the console refused (ADR 056): more than is left, or an order that cannot be refunded here. */
  REFUND_NOT_ALLOWED: { reason: 'exceeds-refundable' | 'not-refundable'; refundable: number }
}

/** The `details` of an error with code `C`. */
export type ErrorDetails<C extends ErrorCode> = C extends keyof ErrorDetailsByCode ? ErrorDetailsByCode[C] : undefined
