import type { z } from 'zod'
import type {
  chatGenerationSettingsSchema,
  chatMessageSchema,
  chatReplySchema,
  chatSessionDetailSchema,
  chatSessionListSchema,
  chatSessionSummarySchema,
  chatSettingsSchema,
  chatStreamEventSchemas,
  contextUsageSchema,
  publicModelSchema,
} from './chat-schemas.ts'

/** The longest message a user may send or save by editing, in characters (code points). */
export const CHAT_MESSAGE_MAX_LENGTH = 4000
/** The longest memory note, whether the model wrote it or the user edited it. */
export const MEMORY_NOTE_MAX_LENGTH = 4000
/** Sending (a message, a regeneration) is limited per user to this many per minute. */
export const CHAT_SEND_LIMIT = { max: 20, windowMs: 60_000 } as const
/**
 * Starting chats is limited per user: 30 an hour lets someone try many characters in a sitting;
 * a script that opens sessions by the dozen a second is stopped within the first second.
 */
export const CHAT_CREATE_SESSION_LIMIT = { max: 30, windowMs: 60 * 60_000 } as const
/** Saving a memory note by hand is limited per user: a person edits and saves a few times a minute at most. */
export const CHAT_MEMORY_UPDATE_LIMIT = { max: 30, windowMs: 10 * 60_000 } as const

/** Changing a chat's settings (temperature, reply length) is limited per user like saving its memory note. */
export const CHAT_SETTINGS_UPDATE_LIMIT = { max: 30, windowMs: 10 * 60_000 } as const
/** The highest temperature the model servers take (llama.cpp, vLLM, OpenAI): no bound goes above it. */
export const TEMPERATURE_MAX = 2
/** The shortest reply length an operator may allow (MODELS_FILE `maxReplyTokens`, `userReplyTokens`). */
export const REPLY_TOKENS_MIN = 16

export const MESSAGES_PAGE_SIZE_DEFAULT = 50
export const MESSAGES_PAGE_SIZE_MAX = 100
export const SESSIONS_PAGE_SIZE_DEFAULT = 50
export const SESSIONS_PAGE_SIZE_MAX = 100

/** The spec's text for an unknown session or one of another user (code INVALID_SESSION). */
export const INVALID_SESSION_MESSAGE = 'Invalid session!'

export const MESSAGE_AUTHORS = ['user', 'assistant'] as const
export type MessageAuthor = (typeof MESSAGE_AUTHORS)[number]

/**
 * `complete`: the model finished the reply. `interrupted`: the reply broke off (the user stopped it,
 * the model failed, timed out or the stream was cut) and the text received so far was kept.
 * `cut`: the model stopped at its reply length (`finish_reason: "length"`): delivered and paid like
 * a complete reply, and Continue may extend it (ADR 031).
 * A reply that failed before any text arrived is not stored at all.
 */
export const MESSAGE_STATUSES = ['complete', 'interrupted', 'cut'] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

/** Server-sent events of `/api/chat/stream` and `/api/chat/regenerate/stream`, in the order they come. */
export const CHAT_STREAM_EVENTS = ['start', 'reasoning', 'delta', 'done', 'stopped', 'error'] as const
export type ChatStreamEventName = (typeof CHAT_STREAM_EVENTS)[number]

/**
 * Why a model call failed (`details.kind` of MODEL_ERROR, `kind` of the `error` event):
 * timeout, provider (refused or unreachable), cut (the stream broke off), invalid (not the
 * protocol, or an empty reply), aborted (stopped: by the user, or the server shutting down).
 */
export const MODEL_FAILURE_KINDS = ['timeout', 'provider', 'cut', 'invalid', 'aborted'] as const
export type ModelFailureKind = (typeof MODEL_FAILURE_KINDS)[number]

/** What a provider's refusal means (server/modules/models/model-failures.ts sorts them), or `reasoning_only`. */
export const MODEL_FAILURE_REASONS = [
  'context_too_long',
  'model_not_found',
  'unreachable',
  'credentials_refused',
  'rate_limited',
  'overloaded',
  'template_refused',
  // Not a refusal: the model's whole reply was reasoning (a think block it never closed).
  'reasoning_only',
  // Not a refusal: the embedded model is still being downloaded or loaded (ADR 037).
  'preparing',
  'other',
] as const
export type ModelFailureReason = (typeof MODEL_FAILURE_REASONS)[number]

/**
 * Why a memory summary failed (ADR 034): what the provider's refusal means, or `timeout`. Stored on
 * the session; the memory panel names it.
 */
export const SUMMARY_FAILURE_CODES = [...MODEL_FAILURE_REASONS, 'timeout'] as const
export type SummaryFailureCode = (typeof SUMMARY_FAILURE_CODES)[number]
/** The memory panel shows a notice once this many summaries failed in a row. */
export const SUMMARY_NOTICE_FAILURES = 2
/** Asking for a failed summary again ("Try again") is limited per user. */
export const CHAT_SUMMARY_RETRY_LIMIT = { max: 10, windowMs: 10 * 60_000 } as const

/**
 * The error code of a failed reply, by what the provider's refusal means (ADR 031). Each has its
 * localized message (`apiErrors` in locales/<locale>/common.json); `retryable` says whether a retry
 * can help. Other failures (timeouts, cut streams, unknown provider errors) stay MODEL_ERROR.
 */
export const MODEL_FAILURE_CODES = {
  context_too_long: 'MODEL_CONTEXT_TOO_LONG',
  model_not_found: 'MODEL_NOT_FOUND',
  unreachable: 'MODEL_UNREACHABLE',
  credentials_refused: 'MODEL_CREDENTIALS_REFUSED',
  rate_limited: 'MODEL_RATE_LIMITED',
  overloaded: 'MODEL_OVERLOADED',
  template_refused: 'MODEL_TEMPLATE_REFUSED',
  reasoning_only: 'MODEL_REPLY_ONLY_REASONING',
  preparing: 'MODEL_PREPARING',
  other: 'MODEL_ERROR',
} as const
export type ModelFailureCode = (typeof MODEL_FAILURE_CODES)[keyof typeof MODEL_FAILURE_CODES]

/**
 * What serves chat (ADR 037): the model running in this process (`embedded`, downloaded on the
 * first start) or model servers over HTTP. `downloading` and `loading` mean the chat is being
 * prepared: replies fail with MODEL_PREPARING until it is `ready`.
 */
export const CHAT_PROVIDER_KINDS = ['embedded', 'http'] as const
export const CHAT_PROVIDER_STATES = ['downloading', 'loading', 'ready', 'failed'] as const
export type ChatProvider = {
  kind: (typeof CHAT_PROVIDER_KINDS)[number]
  state: (typeof CHAT_PROVIDER_STATES)[number]
  /** The download's progress, 0 to 100, while `downloading` (null when its size is unknown). */
  percent: number | null
  /** Why it is `failed`: offline, disk_full, checksum, not_found, http, or the provider's own code. */
  failure: string | null
}

/** How the message length bound counts: characters as people see them, not UTF-16 units. */
export function messageLength(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

export type PublicModel = z.infer<typeof publicModelSchema>
export type ChatMessage = z.infer<typeof chatMessageSchema>
export type ContextUsage = z.infer<typeof contextUsageSchema>
export type ChatSessionSummary = z.infer<typeof chatSessionSummarySchema>
export type ChatSessionList = z.infer<typeof chatSessionListSchema>
export type ChatSessionDetail = z.infer<typeof chatSessionDetailSchema>
export type ChatSettings = z.infer<typeof chatSettingsSchema>
/** The settings a model's bounds apply to (ADR 033). */
export type ChatGenerationSettings = z.infer<typeof chatGenerationSettingsSchema>
export type ChatReply = z.infer<typeof chatReplySchema>
export type ChatStreamEvent = {
  [K in keyof typeof chatStreamEventSchemas]: { event: K; data: z.infer<(typeof chatStreamEventSchemas)[K]> }
}[keyof typeof chatStreamEventSchemas]
