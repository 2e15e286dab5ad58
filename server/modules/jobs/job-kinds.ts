import type { Locale } from '#contracts/locales.ts'
import type { MailMessage } from '#server/modules/mail/mailer.ts'

export const MINUTE = 60_000

/** What each kind of job carries. */
export type JobPayloads = {
  /** A verification, reset or "account exists" mail; the link's token is made when it is sent. */
  'account-mail': {
    userId: string
    kind: 'verify-email' | 'reset-password' | 'account-exists'
    purpose: 'verify-email' | 'reset-password'
  }
  /**
   * A security notice to the account's owner (their password was changed, an operator warned
   * them with `note`: ADR 055), with the moment it happened; nothing in it logs in.
   */
  'security-mail': { userId: string; event: 'password-changed' | 'warning'; at: string; note?: string }
  /** A mail whose whole content is known (the contact form). Deleted once sent. */
  mail: MailMessage
  /** Fold the messages that left a chat's memory window into its memory note. */
  /** `language`: the reply's language when the job was queued (ADR 038); absent in jobs queued before it. */
  'chat-summary': { sessionId: string; userId: string; keptFromId: number; language?: Locale | null }
  /** Removes a chat its user deleted once the undo window has passed (ADR 048). Key `chat-purge:<session>`. */
  'chat-purge': { sessionId: string }
  /** The monthly diamonds of every account whose month has not been credited yet. */
  'monthly-award': Record<string, never>
  /** Deletes sign-in tokens and e-mail links that expired or were used up (hourly). */
  'expired-tokens': Record<string, never>
  /** Refunds diamond holds that a process killed mid-reply left open (at start and hourly, ADR 024). */
  'stale-holds': Record<string, never>
  /**
   * A second card subscription paid while the user's plan already ran (two checkouts open side by
   * side, ADR 025): cancel it at Stripe and refund its payment.
   */
  'refund-duplicate-subscription': { orderId: string; userId: string; providerSubscriptionId: string }
  /**
   * A public character's texts machine-translated into `locale` (ADR 040); `roleId` is the public
   * id. Key `translate-role:<roleId>:<locale>`: one waiting per character and locale.
   */
  'translate-role': { roleId: string; locale: Locale }
  /** Queues `translate-role` for public characters lacking TRANSLATE_AHEAD_LOCALES (at start and hourly). */
  'translate-ahead': Record<string, never>
}

export type JobKind = keyof JobPayloads

type KindSettings = { maxAttempts: number; leaseMs: number }

/**
 * Attempts and lease per kind. A lease outlasts the longest run a handler can have (SMTP timeouts
 * of 10 s each; a summary of up to four model calls of 60 s).
 */
export const JOB_KINDS: Record<JobKind, KindSettings> = {
  // Retried for about a day: 10 s, 20 s, 40 s... capped at an hour.
  'account-mail': { maxAttempts: 16, leaseMs: 2 * MINUTE },
  'security-mail': { maxAttempts: 16, leaseMs: 2 * MINUTE },
  mail: { maxAttempts: 16, leaseMs: 2 * MINUTE },
  'chat-summary': { maxAttempts: 4, leaseMs: 10 * MINUTE },
  'chat-purge': { maxAttempts: 16, leaseMs: 2 * MINUTE },
  'monthly-award': { maxAttempts: 6, leaseMs: 10 * MINUTE },
  'expired-tokens': { maxAttempts: 3, leaseMs: 10 * MINUTE },
  'stale-holds': { maxAttempts: 3, leaseMs: 10 * MINUTE },
  // Retried for about a day, within the 24 hours Stripe keeps the idempotency keys (two calls of 10 s
  // each, one retry each).
  'refund-duplicate-subscription': { maxAttempts: 16, leaseMs: 2 * MINUTE },
  // A model that cannot be reached defers the job (not counted); these attempts are for answers
  // that were not usable and other failures: 10 s, 20 s, ... about 20 minutes. The handler stops
  // its model calls before the lease ends (machine-translation.ts JOB_DEADLINE_MS).
  'translate-role': { maxAttempts: 8, leaseMs: 30 * MINUTE },
  'translate-ahead': { maxAttempts: 3, leaseMs: 10 * MINUTE },
}

export type EnqueueOptions = {
  /** At most one unfinished job per key: a second enqueue with the same key is ignored. */
  key?: string
  /** Not before this moment (default: now). */
  runAt?: Date
}
