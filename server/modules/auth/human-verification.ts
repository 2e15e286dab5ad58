import { createHmac } from 'node:crypto'
import { createChallenge, randomInt, verifySolution } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import type { Config } from '#server/config.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'

const CHALLENGE_TTL_MS = 10 * 60_000

export type VerificationResult = { ok: true } | { ok: false; reason: string }

/**
 * The human check of the register form. Self-hosted ALTCHA proof-of-work by default (works with no
 * outside service); Cloudflare Turnstile when its keys are configured. The form's field is called
 * `turnstileToken` in the spec and carries either.
 */
export function createHumanVerification(config: Config, kv: KeyValueStore) {
  // Secrets derived from the app secret, so nothing else has to be configured.
  const secret = (purpose: string) => createHmac('sha256', config.jwtSecret).update(`altcha:${purpose}`).digest('hex')
  const hmacSignatureSecret = secret('signature')
  const hmacKeySignatureSecret = secret('key-signature')

  return {
    provider: config.captcha.provider,
    siteKey: config.captcha.turnstileSiteKey,

    /** A fresh ALTCHA challenge: about a quarter of a second of hashing in a browser. */
    async challenge() {
      return createChallenge({
        algorithm: 'SHA-256',
        cost: 1,
        counter: randomInt(20_000, 80_000),
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
        expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
      })
    },

    async verify(token: string, remoteIp: string): Promise<VerificationResult> {
      if (config.captcha.provider === 'turnstile') return verifyTurnstile(token, remoteIp)
      let payload: { challenge?: unknown; solution?: unknown }
      try {
        payload = JSON.parse(Buffer.from(token, 'base64').toString('utf8'))
      } catch {
        return { ok: false, reason: 'malformed' }
      }
      if (!payload || typeof payload !== 'object' || !payload.challenge || !payload.solution) {
        return { ok: false, reason: 'malformed' }
      }
      const result = await verifySolution({
        challenge: payload.challenge as never,
        solution: payload.solution as never,
        deriveKey,
        hmacSignatureSecret,
        hmacKeySignatureSecret,
      }).catch(() => null)
      if (!result?.verified) return { ok: false, reason: result?.expired ? 'expired' : 'invalid' }
      // A solved challenge is good for one submission only. The marker names the challenge itself
      // (its random nonce and salt, both covered by our signature), not the token's text: the same
      // solution re-encoded (re-spaced JSON, junk after the base64) is still the same challenge.
      const { nonce, salt } = (payload.challenge as { parameters: { nonce: string; salt: string } }).parameters
      const used = await kv.setIfAbsent(
        `altcha:used:${createHmac('sha256', hmacSignatureSecret).update(`${nonce}:${salt}`).digest('hex')}`,
        '1',
        CHALLENGE_TTL_MS,
      )
      return used ? { ok: true } : { ok: false, reason: 'already used' }
    },
  }

  async function verifyTurnstile(token: string, remoteIp: string): Promise<VerificationResult> {
    try {
      const response = await fetch(config.captcha.turnstileVerifyUrl, {
        method: 'POST',
        body: new URLSearchParams({
          secret: config.captcha.turnstileSecretKey ?? '',
          response: token,
          remoteip: remoteIp,
        }),
        signal: AbortSignal.timeout(10_000),
      })
      const body = (await response.json()) as { success?: boolean; 'error-codes'?: string[] }
      return body.success ? { ok: true } : { ok: false, reason: body['error-codes']?.join(', ') || 'rejected' }
    } catch {
      return { ok: false, reason: 'unreachable' }
    }
  }
}

export type HumanVerification = ReturnType<typeof createHumanVerification>

/** Refuses the request unless `token` proves a human (registration, and logins under attack). */
export async function requireHuman(verification: Pick<HumanVerification, 'verify'>, token: string, ip: string) {
  const human = await verification.verify(token, ip)
  if (!human.ok)
    throw new AppError(400, 'VERIFICATION_FAILED', `Verification failed: ${human.reason}`, { reason: human.reason })
}
