import { createHash } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import { RESEND_COOLDOWN_SECONDS, RESET_LINK_TTL_MINUTES, VERIFY_LINK_TTL_MINUTES } from '#contracts/accounts.ts'

const MINUTE = 60_000
// Abuse limits (docs/decisions/008-accounts-and-tokens.md, 023-login-throttling-and-mail-caps.md).
// Per IP (an IPv6 /64 counts as one source) and per address; nothing a stranger does to an address
// refuses its owner.
export const LIMITS = {
  registerPerIp: { max: 10, windowMs: 60 * MINUTE },
  /** Every login attempt from one source, before the password is checked. */
  loginPerIp: { max: 30, windowMs: 15 * MINUTE },
  /** Failed logins to one account from one source; beyond, that source solves a human check per try. */
  loginFailuresPerSource: { max: 5, windowMs: 15 * MINUTE },
  /** Failed logins to one account from everywhere; beyond, sources it never signed in from solve one too. */
  loginFailuresPerAccount: { max: 20, windowMs: 15 * MINUTE },
  resendPerAccount: { max: 1, windowMs: RESEND_COOLDOWN_SECONDS * 1000 },
  resendPerIp: { max: 10, windowMs: 60 * MINUTE },
  verifyPerIp: { max: 30, windowMs: 15 * MINUTE },
  resetPerIp: { max: 10, windowMs: 60 * MINUTE },
  // Mails with a link, per address: over the cap the request answers the same and nothing is sent.
  // Each window is as long as its links live, so a mail held back always leaves the ones sent in
  // the window working: a stranger can fill the cap, never leave the owner without a link.
  resetMailsPerAccount: { max: 3, windowMs: RESET_LINK_TTL_MINUTES * MINUTE },
  verifyMailsPerAccount: { max: 5, windowMs: VERIFY_LINK_TTL_MINUTES * MINUTE },
  refreshPerIp: { max: 120, windowMs: 15 * MINUTE },
  logoutAllPerUser: { max: 5, windowMs: 15 * MINUTE },
  logoutAllPerIp: { max: 20, windowMs: 15 * MINUTE },
}

/** An address as a limit key: the same for any spelling of it, and not the address itself. */
export const accountKey = (email: string) =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)

/** Reset links (also in the "account exists" notice) share one cap per address. */
export const resetMailKey = (email: string) => `reset-mail:account:${accountKey(email)}`
export const verifyMailKey = (email: string) => `verify-mail:account:${accountKey(email)}`

/**
 * Where a request comes from, for limits: the IPv4 address, or the /64 network of an IPv6 one
 * (one household or server usually holds a whole /64, and could take a fresh address per try).
 */
export function sourceOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const address = ipaddr.process(ip)
  if (address.kind() === 'ipv4') return address.toString()
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`
}
