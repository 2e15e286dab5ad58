import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'

/** Access tokens live briefly; the refresh token (its own module) renews them. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ISSUER = 'taleweave'
const AUDIENCE = 'taleweave-api'

export type AccessTokenClaims = { userId: string }

/** Tokens already verified, kept until they expire: a client sends the same one with every call. */
const VERIFIED_CACHE_SIZE = 10_000

export function createAccessTokens(secret: string) {
  const key = new TextEncoder().encode(secret)
  // Checking the signature again is a round trip through the crypto thread pool on every request
  // (about half a millisecond, more on a busy machine). The whole token is the key, signature
  // included, so only the very bytes that passed are recognised; the expiry is checked each time.
  const verified = new Map<string, { userId: string; exp: number }>()
  return {
    async issue(claims: AccessTokenClaims, now = new Date()): Promise<string> {
      const issuedAt = Math.floor(now.getTime() / 1000)
      return new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ACCESS_TOKEN_TTL_SECONDS)
        .sign(key)
    },
    /** The claims of a valid token, or null when it is malformed, forged or expired. */
    async verify(token: string): Promise<AccessTokenClaims | null> {
      const known = verified.get(token)
      if (known) {
        // jose's rule: expired once the current second reaches `exp`.
        if (Math.floor(Date.now() / 1000) < known.exp) return { userId: known.userId }
        verified.delete(token)
        return null
      }
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })
        if (!payload.sub) return null
        if (payload.exp !== undefined) {
          if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string)
          verified.set(token, { userId: payload.sub, exp: payload.exp })
        }
        return { userId: payload.sub }
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return null
        throw error
      }
    },
  }
}

export type AccessTokens = ReturnType<typeof createAccessTokens>
