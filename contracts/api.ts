import { z } from 'zod'

/** The success envelope of every `/api` response (DESIGN.md, API conventions). */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.literal(0),
    success: z.literal(true),
    message: z.literal('ok'),
    data,
  })
}

export const errorEnvelope = z.object({
  code: z.number().int().min(400).max(599),
  success: z.literal(false),
  error: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
})
export type ErrorEnvelope = z.infer<typeof errorEnvelope>

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
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/** Time limits of the HTTP client (spec section 9). */
export const REQUEST_TIMEOUT_MS = 10_000
export const CHAT_TIMEOUT_MS = 60_000

/**
 * Calls that never send the user to the login page on a 401 (spec section 6).
 * Matched against the path after `/api`.
 */
export const PUBLIC_API_PATHS = [
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

export const healthResponse = z.object({ status: z.literal('ok') })
export const readinessResponse = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'failed'])),
})

/** Build metadata written at build time and polled by the client. */
export const buildInfo = z.object({ id: z.string(), timestamp: z.number().int() })
export type BuildInfo = z.infer<typeof buildInfo>
