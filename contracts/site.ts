import type { z } from 'zod'
import type { contactBody, friendshipLinkSchema } from './site-schemas.ts'

// The friendship links page and its contact form.

export const CONTACT_NAME_MAX = 100
export const CONTACT_MESSAGE_MIN = 10
export const CONTACT_MESSAGE_MAX = 5000

export type FriendshipLink = z.infer<typeof friendshipLinkSchema>
export type ContactBody = z.input<typeof contactBody>

/** The friendship links of config/links.json, described in the page's language when possible. */
export type FriendshipLinks = { list(locale: string): FriendshipLink[] }

/** When the privacy policy last changed (`YYYY-MM-DD`): shown on the page and in the sitemaps. */
export const PRIVACY_POLICY_UPDATED = '2026-11-21'
