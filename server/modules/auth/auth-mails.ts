import { RESET_LINK_TTL_MINUTES, VERIFY_LINK_TTL_MINUTES } from '#contracts/accounts.ts'
import { DEFAULT_LOCALE, isLocale, type Locale, localizePath } from '#contracts/locales.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { withinLimit } from '#server/lib/rate-limit.ts'
import type { JobExecutor, JobPayloads, JobQueue } from '#server/modules/jobs/job-queue.ts'
import { type AccountMailKind, renderAccountMail, renderSecurityMail } from '#server/modules/mail/account-mail.ts'
import type { Mailer } from '#server/modules/mail/mailer.ts'
import { LIMITS, resetMailKey } from './abuse-limits.ts'
import type { AuthRepo } from './auth.repo.ts'
import { newSecret, secretHash } from './secrets.ts'

const MINUTE = 60_000

export type MailPurpose = 'verify-email' | 'reset-password'

/**
 * The mails of accounts: queued as jobs (ADR 017), so a request answers at once and a mail server
 * that is down delays them; the link's secret is made only when the mail leaves.
 */
export function createAuthMails(deps: {
  repo: AuthRepo
  kv: KeyValueStore
  mailer: Mailer
  jobs: Pick<JobQueue, 'enqueue'>
  publicUrl: string
}) {
  const { repo, kv, mailer, jobs, publicUrl } = deps

  /** Queues the mail; with `executor`, in the caller's transaction (both happen, or neither). */
  async function queue(kind: AccountMailKind, user: { id: string }, purpose: MailPurpose, executor?: JobExecutor) {
    await jobs.enqueue('account-mail', { userId: user.id, kind, purpose }, {}, executor)
  }

  /**
   * Sends an account mail with a fresh link. Its token is made here, when the mail leaves, so that
   * no usable link waits in the queue; each retry makes its own (an unused one simply expires).
   */
  async function send(
    kind: AccountMailKind,
    user: { id: string; email: string; username: string; locale: string },
    purpose: MailPurpose,
  ) {
    const token = newSecret()
    const minutes = purpose === 'verify-email' ? VERIFY_LINK_TTL_MINUTES : RESET_LINK_TTL_MINUTES
    await repo.insertEmailToken({
      userId: user.id,
      purpose,
      tokenHash: secretHash(token),
      expiresAt: new Date(Date.now() + minutes * MINUTE),
    })
    const locale: Locale = isLocale(user.locale) ? user.locale : DEFAULT_LOCALE
    const page = purpose === 'verify-email' ? '/verify' : '/reset-password'
    const link = `${publicUrl}${localizePath(locale, page)}?token=${token}`
    await mailer.send({
      to: user.email,
      ...renderAccountMail(kind, locale, { username: user.username, link, expiresInMinutes: minutes }),
    })
  }

  return {
    queue,

    /** Someone registered an address that has an account: its owner gets a notice with a reset link, within the cap. */
    async tellOwnerOfExistingAccount(user: { id: string; email: string }) {
      if (await withinLimit(kv, resetMailKey(user.email), LIMITS.resetMailsPerAccount)) {
        await queue('account-exists', user, 'reset-password')
      }
    },

    /**
     * The `account-mail` job. Nothing is sent to an account deleted meanwhile, nor a verification
     * link to an address verified meanwhile.
     */
    async deliverAccountMail(job: JobPayloads['account-mail']) {
      const user = await repo.findUserById(job.userId)
      if (!user) return
      if (job.purpose === 'verify-email' && user.emailVerifiedAt) return
      await send(job.kind, user, job.purpose)
    },

    /**
     * The `security-mail` job: tells the owner what changed and when, and where to start if it was
     * not them (the forgot-password page). No token and no link that logs in: a mail read by the
     * wrong person must not open the account.
     */
    async deliverSecurityMail(job: JobPayloads['security-mail']) {
      const user = await repo.findUserById(job.userId)
      if (!user) return
      const locale: Locale = isLocale(user.locale) ? user.locale : DEFAULT_LOCALE
      await mailer.send({
        to: user.email,
        ...renderSecurityMail(job.event, locale, {
          username: user.username,
          at: new Date(job.at),
          link: `${publicUrl}${localizePath(locale, job.event === 'warning' ? '/characters/mine' : '/forgot-password')}`,
          quote: job.note,
        }),
      })
    },
  }
}

export type AuthMails = ReturnType<typeof createAuthMails>
