// Bounds and shapes of accounts, shared by the forms and the server. Decided in
// docs/decisions/008-accounts-and-tokens.md.

export const USERNAME_MIN = 3
export const USERNAME_MAX = 32
/** Letters and digits of any script, plus `_`, `.` and `-`; no spaces, no look-alike control characters. */
export const USERNAME_PATTERN = /^[\p{L}\p{N}_.-]+$/u
export const EMAIL_MAX = 254
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

/** Seconds before "Resend verification e-mail" may be pressed again (the server enforces it too). */
export const RESEND_COOLDOWN_SECONDS = 60

/**
 * A login (a refresh token family) ends this long after the password or Google sign-in, however
 * active it is: 30 days with "remember me", else one day (ADR 019).
 */
export const REFRESH_TTL_REMEMBER_SECONDS = 30 * 24 * 60 * 60
export const REFRESH_TTL_SESSION_SECONDS = 24 * 60 * 60
/**
 * ...and sooner when it goes unused: no refresh for 7 days with "remember me", else for 2 hours
 * (ADR 019). Each refresh moves this deadline, never past the family's end above.
 */
export const REFRESH_IDLE_REMEMBER_SECONDS = 7 * 24 * 60 * 60
export const REFRESH_IDLE_SESSION_SECONDS = 2 * 60 * 60

export const VERIFY_LINK_TTL_MINUTES = 24 * 60
export const RESET_LINK_TTL_MINUTES = 30

export type TokenPair = { token: string; refreshToken: string }

export type UserInfo = {
  username: string
  email: string
  /** A default image when the user has none. */
  avatar: string
  /** Diamonds. */
  balance: number
  showAdultContent: boolean
}

export const DEFAULT_AVATAR = '/default-avatar.svg'
