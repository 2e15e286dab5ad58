import { z } from 'zod'
import { EMAIL_MAX } from './accounts.ts'
import { CONTACT_MESSAGE_MAX, CONTACT_MESSAGE_MIN, CONTACT_NAME_MAX } from './site.ts'

export const friendshipLinkSchema = z.object({
  name: z.string(),
  url: z.string(),
  description: z.string(),
  /** The locale the description is written in: the page's, or English where it has none. */
  descriptionLocale: z.string(),
})

// No control characters in a name: it goes into a mail subject.
const NO_CONTROL = /^[^\p{Cc}]*$/u

/** `POST /api/public/contact`. */
export const contactBody = z
  .object({
    name: z.string().trim().min(1).max(CONTACT_NAME_MAX).regex(NO_CONTROL, 'no control characters'),
    email: z.string().trim().max(EMAIL_MAX).pipe(z.email()),
    message: z.string().trim().min(CONTACT_MESSAGE_MIN).max(CONTACT_MESSAGE_MAX),
    /** The human-verification token (ALTCHA or Turnstile), as in the register form. */
    turnstileToken: z.string().min(1).max(20_000),
    locale: z.string().max(10).optional(),
  })
  .strict()
