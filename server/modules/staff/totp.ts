import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'

/** RFC 6238 as authenticator apps expect it by default: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_SECONDS = 30
const DIGITS = 6
const ALGORITHM = 'SHA1'
/** A code of the step before or after the current one is accepted too (clocks drift). */
const DRIFT_STEPS = 1
const ISSUER = 'Taleweave'

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32
}

function totp(secretBase32: string, label = 'staff', digits = DIGITS, algorithm = ALGORITHM) {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm,
    digits,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  })
}

/** The otpauth:// address an authenticator app reads (as a QR code, or typed in). */
export function totpUri(secretBase32: string, label: string): string {
  return totp(secretBase32, label).toString()
}

/** The code of `atMs` (tests, and the RFC 6238 vectors with other digits and algorithms). */
export function totpCode(secretBase32: string, atMs: number, options: { digits?: number; algorithm?: string } = {}) {
  return totp(secretBase32, 'staff', options.digits, options.algorithm).generate({ timestamp: atMs })
}

/**
 * The time step of `code` if it is valid at `atMs` within the allowed drift, else null. The caller
 * refuses a step at or before the last one accepted, so each code counts once.
 */
export function totpStep(secretBase32: string, code: string, atMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const delta = totp(secretBase32).validate({ token: code, timestamp: atMs, window: DRIFT_STEPS })
  if (delta === null) return null
  return Math.floor(atMs / 1000 / TOTP_PERIOD_SECONDS) + delta
}

/** Encrypts TOTP secrets at rest: AES-256-GCM under a key derived from STAFF_TOTP_KEY. */
export function createSecretBox(configuredKey: string) {
  const key = Buffer.from(hkdfSync('sha256', configuredKey, 'taleweave-staff-totp', 'totp-secret-v1', 32))
  return {
    seal(plain: string): string {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        sealed.toString('base64url'),
      ].join('.')
    },
    open(box: string): string {
      const [version, iv, tag, sealed] = box.split('.')
      if (version !== 'v1' || !iv || !tag || !sealed) throw new Error('not a sealed TOTP secret')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8')
    },
  }
}

export type SecretBox = ReturnType<typeof createSecretBox>

/** Ten recovery codes: 10 random characters each from 32 letters and digits (no 0, 1, l, o), shown as xxxxx-xxxxx. */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10)
    const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('')
    return `${chars.slice(0, 5)}-${chars.slice(5)}`
  })
}

/** A recovery code as stored: any case, spaces and dashes ignored, then SHA-256. */
export function recoveryCodeHash(code: string): string {
  const normal = code.toLowerCase().replace(/[\s-]/g, '')
  return createHash('sha256').update(normal).digest('hex')
}
