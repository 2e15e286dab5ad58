import { api } from '#app/lib/http.ts'
import type { TokenPair } from '#contracts/accounts.ts'

// One function per account call (docs: /api/docs, tag "accounts").
export const register = (body: {
  username: string
  email: string
  password: string
  turnstileToken: string
  locale: string
}) => api<{ message: string }>('/register', { method: 'POST', body })
export const resendVerification = (email: string) =>
  api<{ message: string }>('/resend-email', { method: 'POST', body: { email } })
/**
 * `turnstileToken`: a solved human check, asked for after failed logins (HUMAN_VERIFICATION_REQUIRED).
 * `locale`: the page's language, which the account's mails are then written in.
 */
export const login = (body: {
  email: string
  password: string
  rememberMe: boolean
  turnstileToken?: string
  locale: string
}) => api<TokenPair>('/login', { method: 'POST', body })
/** The language chosen in the language selector, for a signed-in person's mails. */
export const saveLocale = (locale: string) =>
  api<{ locale: string }>('/locale', { method: 'POST', body: { locale }, auth: 'optional', timeoutMs: 3000 })
export const verifyEmail = (token: string) => api<{ message: string }>('/verify', { method: 'POST', query: { token } })
export const requestPasswordReset = (email: string) =>
  api<{ message: string }>('/forgot-password', { method: 'POST', body: { email } })
export const resetPassword = (token: string, password: string) =>
  api<{ message: string }>('/reset-password', { method: 'POST', body: { token, password } })
export const logout = (refreshToken: string) =>
  api<Record<string, never>>('/logout', { method: 'POST', body: { refreshToken } })
