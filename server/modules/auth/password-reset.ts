import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit, withinLimit } from '#server/lib/rate-limit.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import { LIMITS, resetMailKey } from './abuse-limits.ts'
import type { AuthRepo } from './auth.repo.ts'
import type { AuthMails } from './auth-mails.ts'
import { hashPassword } from './passwords.ts'
import { refuseWeakPassword, welcomeOnFirstVerification } from './registration.ts'
import { secretHash } from './secrets.ts'
import type { SecurityEventLog, Sessions } from './sessions.ts'

export function createPasswordReset(deps: {
  repo: AuthRepo
  kv: KeyValueStore
  jobs: Pick<JobQueue, 'enqueue' | 'kick'>
  mails: Pick<AuthMails, 'queue'>
  sessions: Pick<Sessions, 'endAccessTokens'>
  diamonds: Pick<DiamondsService, 'grantSignup'>
  securityEvent: SecurityEventLog
}) {
  const { repo, kv, jobs, mails, sessions, securityEvent } = deps
  const welcome = welcomeOnFirstVerification(deps.diamonds)

  return {
    /**
     * Mails a reset link. The same answer for any address, and no refusal per address: over the
     * address's mail cap nothing is sent, and the links already sent in the window still work.
     */
    async requestPasswordReset(email: string, ip: string) {
      await enforceLimit(kv, `reset:ip:${ip}`, LIMITS.resetPerIp)
      const user = await repo.findUserByEmail(email)
      if (user && (await withinLimit(kv, resetMailKey(user.email), LIMITS.resetMailsPerAccount))) {
        await mails.queue('reset-password', user, 'reset-password')
      }
    },

    /**
     * Sets a new password from a reset link, signs the account out everywhere and tells its owner
     * by mail (ASVS 2.2.3): the mail's job is written in the same transaction as the new password,
     * so there is no change without its notice, and no notice for a refused link. Everywhere means
     * the access tokens too (the tokens-ended mark of ADR 021, set once the link is known to be
     * good and before the refresh tokens are revoked), and every other reset link still open.
     */
    async resetPassword(token: string, password: string, ip: string) {
      await enforceLimit(kv, `verify:ip:${ip}`, LIMITS.verifyPerIp)
      refuseWeakPassword(password)
      // Hashed before the transaction, so it does not hold the database during the slow hash.
      const passwordHash = await hashPassword(password)
      const changedAt = new Date()
      const userId = await repo.resetPassword(secretHash(token), passwordHash, async (tx, change) => {
        await sessions.endAccessTokens(change.userId)
        await jobs.enqueue(
          'security-mail',
          { userId: change.userId, event: 'password-changed', at: changedAt.toISOString() },
          {},
          tx,
        )
        await welcome(tx, change)
      })
      if (!userId) throw new AppError(400, 'INVALID_TOKEN', 'This link is invalid, expired or already used.')
      jobs.kick()
      securityEvent('password.reset', { ip, userId })
    },
  }
}
