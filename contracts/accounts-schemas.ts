import { z } from 'zod'
import { EMAIL_MAX, PASSWORD_MAX, USERNAME_MAX, USERNAME_MIN, USERNAME_PATTERN } from './accounts.ts'

// zod schemas of the account calls (server validation and the OpenAPI document).

const email = z.string().trim().max(EMAIL_MAX).pipe(z.email())
// Length and commonness are checked by the server with a precise error (WEAK_PASSWORD).
const password = z.string().min(1).max(PASSWORD_MAX)

const humanToken = z.string().min(1).max(20_000)

export const registerBody = z
  .object({
    username: z.string().trim().min(USERNAME_MIN).max(USERNAME_MAX).regex(USERNAME_PATTERN),
    email,
    password,
    turnstileToken: humanToken,
    locale: z.string().max(10).optional(),
  })
  .strict()

// A solved human check is asked for only after failed logins (ADR 023: HUMAN_VERIFICATION_REQUIRED).
export const loginBody = z
  .object({
    email,
    password,
    rememberMe: z.boolean().default(false),
    turnstileToken: humanToken.optional(),
    /** The page's language: the account's mails are written in it from now on. */
    locale: z.string().max(10).optional(),
  })
  .strict()
export const emailBody = z.object({ email }).strict()
export const refreshBody = z.object({ refreshToken: z.string().min(1).max(200) }).strict()
export const tokenQuery = z.object({ token: z.string().min(1).max(200) })
export const resetPasswordBody = z.object({ token: z.string().min(1).max(200), password }).strict()

export const tokenPair = z.object({ token: z.string(), refreshToken: z.string() })
export const userInfo = z.object({
  username: z.string(),
  email: z.string(),
  avatar: z.string(),
  balance: z.number().int(),
  showAdultContent: z.boolean(),
})
export const messageResult = z.object({ message: z.string() })
/** "Log out everywhere" (ADR 021): how many logins it ended, this one included. */
export const logoutAllResult = z.object({ loginsEnded: z.number().int().min(0) })
export type LogoutAllResult = z.infer<typeof logoutAllResult>
