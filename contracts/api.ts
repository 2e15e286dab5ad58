/** The error envelope of every failed `/api` call. */
export type ErrorEnvelope = {
  code: number
  success: false
  error: string
  message: string
  details?: unknown
}

/** Machine codes of errors. The client maps each to a localized message. */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'NETWORK_ERROR',
  'VERIFICATION_FAILED',
  'HUMAN_VERIFICATION_REQUIRED',
  'WEAK_PASSWORD',
  'USERNAME_TAKEN',
  'INVALID_CREDENTIALS',
  'EMAIL_NOT_VERIFIED',
  'ACCOUNT_SUSPENDED',
  'INVALID_TOKEN',
  'INSUFFICIENT_DIAMONDS',
  'BALANCE_BELOW_ZERO',
  // chat
  'INVALID_SESSION',
  'MESSAGE_TOO_LONG',
  'MODEL_UNAVAILABLE',
  'PREMIUM_REQUIRES_PLAN',
  'MODEL_ERROR',
  'MODEL_CONTEXT_TOO_LONG',
  'MODEL_NOT_FOUND',
  'MODEL_UNREACHABLE',
  'MODEL_CREDENTIALS_REFUSED',
  'MODEL_RATE_LIMITED',
  'MODEL_OVERLOADED',
  'MODEL_TEMPLATE_REFUSED',
  'MODEL_REPLY_ONLY_REASONING',
  'MODEL_PREPARING',
  'REPLY_IN_PROGRESS',
  'CHARACTER_UNAVAILABLE',
  'CHAT_SETTING_OUT_OF_BOUNDS',
  'CHAT_SETTING_LOCKED',
  // find and tidy (ADR 048)
  'CHAT_NOT_RESTORABLE',
  // group scenes (ADR 052)
  'ALREADY_IN_SCENE',
  'SCENE_FULL',
  'SCENE_LAST_MEMBER',
  // characters
  'INVALID_CARD',
  // lorebooks (ADR 043)
  'INVALID_LOREBOOK',
  // chat files in and out (ADR 051)
  'INVALID_CHAT_FILE',
  // machine translation of a character's texts (ADR 040)
  'TRANSLATION_UNAVAILABLE',
  'TRANSLATION_BUDGET_USED',
  // payments
  'ALREADY_SUBSCRIBED',
  'PLAN_CHANGE_NOT_ALLOWED',
  'PAYMENT_DECLINED',
  'REFUND_NOT_ALLOWED',
  'PAYMENT_IN_PROGRESS',
  // the operator console (ADR 054)
  'STAFF_ONLY',
  'SECOND_FACTOR_REQUIRED',
  'INVALID_SECOND_FACTOR_CODE',
  'CONFIRMATION_REQUIRED',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Time limits of the HTTP client (spec section 9). */
export const REQUEST_TIMEOUT_MS = 10_000
/**
 * A chat reply stream has no deadline: a long reply from a slow server may take minutes. The server
 * writes a comment line (`: keep-alive`) at least this often while a stream is open
 * (CHAT_STREAM_KEEPALIVE_MS may only shorten it)...
 */
export const CHAT_STREAM_KEEPALIVE_MS = 15_000
/** ...and the browser gives up on a stream only when no byte at all arrived for this long (ADR 032). */
export const CHAT_STREAM_IDLE_LIMIT_MS = 3 * CHAT_STREAM_KEEPALIVE_MS

/**
 * Calls that never send the user to the login page on a 401 (spec section 6).
 * Matched against the path after `/api`.
 */
const PUBLIC_API_PATHS = [
  '/login',
  '/register',
  '/refresh',
  '/roles',
  '/plan',
  '/role',
  '/tags',
  '/resend-email',
  '/verify',
  '/userInfo',
  '/models',
  '/cron/award-monthly-points',
  '/blog',
  '/blogs',
  '/sitemap/blogs',
  '/sitemap/pages',
  '/payment/status',
] as const

export function isPublicApiPath(apiPath: string): boolean {
  const path = apiPath.split('?')[0] ?? ''
  if (path.startsWith('/public/')) return true
  return (PUBLIC_API_PATHS as readonly string[]).includes(path)
}

export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  const v = value as Partial<ErrorEnvelope> | null
  return (
    v?.success === false && typeof v.code === 'number' && typeof v.error === 'string' && typeof v.message === 'string'
  )
}
