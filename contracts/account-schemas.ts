import { z } from 'zod'
import { EMAIL_MAX, PASSWORD_MAX } from './accounts.ts'

// zod schemas of the account page's calls: export and deletion (docs/decisions/015-account-export-and-deletion.md).

export const accountSummary = z.object({
  username: z.string(),
  email: z.string(),
  /** False for accounts made with Google: deletion is confirmed with the e-mail address instead. */
  hasPassword: z.boolean(),
  createdAt: z.string(),
})
export type AccountSummary = z.infer<typeof accountSummary>

export const deleteAccountBody = z
  .object({
    /** For accounts with a password. */
    password: z.string().max(PASSWORD_MAX).optional(),
    /** For accounts without one: their e-mail address, typed in full. */
    email: z
      .string()
      .max(EMAIL_MAX + 10)
      .optional(),
  })
  .strict()
export type DeleteAccountBody = z.infer<typeof deleteAccountBody>
