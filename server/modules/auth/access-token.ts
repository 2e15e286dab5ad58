import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'

/** Access tokens live briefly; the refresh token (its own module) renews them. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ISSUER = 'taleweave'
const AUDIENCE = 'taleweave-api'

export type AccessTokenClaims = { userId: string }

export function createAccessTokens(secret: string) {
  const key = new TextEncoder().encode(secret)
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
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })
        return payload.sub ? { userId: payload.sub } : null
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return null
        throw error
      }
    },
  }
}

export type AccessTokens = ReturnType<typeof createAccessTokens>
