import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'

/** Access tokens live briefly; the refresh token (its own module) renews them. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
/**
 * How far the clocks of two instances may differ. jose refuses a token issued "in the future", and
 * `iat` is in whole seconds: without it, a token made on one instance could be refused by another
 * whose clock is a few milliseconds behind, across a second's boundary. Expiry stays exact (below).
 */
const CLOCK_SKEW_SECONDS = 5
const ISSUER = 'taleweave'
const AUDIENCE = 'taleweave-api'

export type AccessTokenClaims = { userId: string }
/** A verified token: its user, and when it was issued (milliseconds) so "log out everywhere" can end it. */
export type VerifiedAccessToken = { userId: string; issuedAtMs: number }
/**
 * The issue time in milliseconds, a private claim beside the standard `iat` (whole seconds): a
 * login made in the same second as a "log out everywhere" must still count (ADR 021).
 */
const ISSUED_AT_MS_CLAIM = 'iat_ms'

/**
 * "Log out everywhere" (ADR 021) leaves this mark in the key-value store (shared through Redis):
 * the time, in milliseconds, up to which the user's access tokens no longer count. It outlives the
 * longest access token issued before it.
 */
export const TOKENS_ENDED_KEY = (userId: string) => `tokens-ended:${userId}`
export const TOKENS_ENDED_MARK_TTL_MS = (ACCESS_TOKEN_TTL_SECONDS + 60) * 1000

/** Whether something issued at `issuedAtMs` was ended by the mark read from TOKENS_ENDED_KEY. */
export function endedByMark(issuedAtMs: number, mark: string | null): boolean {
  if (mark === null) return false
  const endedAt = Number(mark)
  return Number.isFinite(endedAt) && issuedAtMs <= endedAt
}

/** Tokens already verified, kept until they expire: a client sends the same one with every call. */
const VERIFIED_CACHE_SIZE = 10_000

export function createAccessTokens(secret: string) {
  const key = new TextEncoder().encode(secret)
  // Checking the signature again is a round trip through the crypto thread pool on every request
  // (about half a millisecond, more on a busy machine). The whole token is the key, signature
  // included, so only the very bytes that passed are recognised; the expiry is checked each time.
  // Only the signature check is cached: whether the user logged out everywhere since is asked of the
  // key-value store on every request (server/plugins/authentication.ts), never remembered here.
  const verified = new Map<string, { userId: string; issuedAtMs: number; until: number }>()
  return {
    async issue(claims: AccessTokenClaims, now = new Date()): Promise<string> {
      const issuedAt = Math.floor(now.getTime() / 1000)
      return new SignJWT({ [ISSUED_AT_MS_CLAIM]: now.getTime() })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ACCESS_TOKEN_TTL_SECONDS)
        .sign(key)
    },
    /** The claims of a valid token, or null when it is malformed, forged or expired. */
    async verify(token: string): Promise<VerifiedAccessToken | null> {
      const known = verified.get(token)
      if (known) {
        // jose's rule: expired once the current second reaches its end (`exp`, or `iat` plus the lifetime).
        if (Math.floor(Date.now() / 1000) < known.until) return { userId: known.userId, issuedAtMs: known.issuedAtMs }
        verified.delete(token)
        return null
      }
      try {
        // Every token must say who it is for, when it was issued and when it ends, and none counts
        // longer than an access token lives, whatever its `exp` says (ASVS 3.5.3).
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
          requiredClaims: ['sub', 'iat', 'exp'],
          maxTokenAge: ACCESS_TOKEN_TTL_SECONDS,
          clockTolerance: CLOCK_SKEW_SECONDS,
        })
        const { sub, iat, exp } = payload
        if (!sub || iat === undefined || exp === undefined) return null
        // The tolerance is for a future `iat` only: the token ends at its `exp` or its age limit.
        const until = Math.min(exp, iat + ACCESS_TOKEN_TTL_SECONDS)
        if (Math.floor(Date.now() / 1000) >= until) return null
        // A token from before the millisecond claim counts as issued at the start of its second:
        // "log out everywhere" ends it rather than spare it.
        const claimedMs = payload[ISSUED_AT_MS_CLAIM]
        const issuedAtMs = typeof claimedMs === 'number' && Number.isFinite(claimedMs) ? claimedMs : iat * 1000
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string)
        verified.set(token, { userId: sub, issuedAtMs, until })
        return { userId: sub, issuedAtMs }
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return null
        throw error
      }
    },
  }
}

export type AccessTokens = ReturnType<typeof createAccessTokens>
