import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import type { Tx } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit, withinLimit } from '#server/lib/rate-limit.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import { accountKey, LIMITS, verifyMailKey } from './abuse-limits.ts'
import type { AccountChange, AuthRepo } from './auth.repo.ts'
import type { AuthMails } from './auth-mails.ts'
import { type HumanVerification, requireHuman } from './human-verification.ts'
import { hashPassword, passwordProblem } from './passwords.ts'
import { secretHash } from './secrets.ts'

/**
 * The welcome diamonds, in the transaction that proves the address for the first time (once per
 * account): a verification link, a reset link or a Google identity may be that proof.
 */
export const welcomeOnFirstVerification =
  (diamonds: Pick<DiamondsService, 'grantSignup'>) => async (tx: Tx, change: AccountChange) => {
    if (change.firstVerified) await diamonds.grantSignup(change.userId, tx)
  }

/** A password the rules refuse, as the answer the form shows beside its field. */
export function refuseWeakPassword(password: string) {
  const problem = passwordProblem(password)
  if (problem) {
    throw new AppError(400, 'WEAK_PASSWORD', 'This password is not allowed.', [
      { path: 'password', message: problem, in: 'body' },
    ])
  }
}

/** Registration with an e-mail address and a password, and proving that address. */
export function createRegistration(deps: {
  repo: AuthRepo
  kv: KeyValueStore
  jobs: Pick<JobQueue, 'kick'>
  humanVerification: Pick<HumanVerification, 'verify'>
  mails: Pick<AuthMails, 'queue' | 'tellOwnerOfExistingAccount'>
  diamonds: Pick<DiamondsService, 'grantSignup'>
}) {
  const { repo, kv, jobs, humanVerification, mails } = deps
  const welcome = welcomeOnFirstVerification(deps.diamonds)

  return {
    /**
     * Creates an account and mails its verification link. An address that already has an account
     * gets the same answer (no one learns who is registered); its owner is told by mail instead.
     */
    async register(input: {
      username: string
      email: string
      password: string
      turnstileToken: string
      locale: string
      ip: string
    }) {
      await enforceLimit(kv, `register:ip:${input.ip}`, LIMITS.registerPerIp)
      await requireHuman(humanVerification, input.turnstileToken, input.ip)
      refuseWeakPassword(input.password)
      const locale = isLocale(input.locale) ? input.locale : DEFAULT_LOCALE
      const usernameTaken = () =>
        new AppError(409, 'USERNAME_TAKEN', 'This username is taken.', [
          { path: 'username', message: 'taken', in: 'body' },
        ])
      // The name before the address: names are public (they sign characters), so refusing a taken
      // one tells nothing about who has an account, whatever address comes with it.
      if (await repo.usernameTaken(input.username)) throw usernameTaken()
      // Hashed on every path, known address or not, so the answer takes as long either way.
      const passwordHash = await hashPassword(input.password)
      const existing = await repo.findUserByEmail(input.email)
      if (existing) return mails.tellOwnerOfExistingAccount(existing)
      const user = await repo.createUser(
        { username: input.username, email: input.email.trim(), passwordHash, locale },
        (tx, created) => mails.queue('verify-email', created, 'verify-email', tx),
      )
      if (!user) {
        // Lost a race with a registration of the same name or address a moment ago.
        const registered = await repo.findUserByEmail(input.email)
        if (registered) return mails.tellOwnerOfExistingAccount(registered)
        throw usernameTaken()
      }
      // The first verification mail counts toward the address's cap on them.
      await withinLimit(kv, verifyMailKey(user.email), LIMITS.verifyMailsPerAccount)
      // The verification mail's job was written with the account; the worker picks it up now.
      jobs.kick()
    },

    async verifyEmail(token: string, ip: string) {
      await enforceLimit(kv, `verify:ip:${ip}`, LIMITS.verifyPerIp)
      const verified = await repo.verifyEmail(secretHash(token), welcome)
      if (!verified) throw new AppError(400, 'INVALID_TOKEN', 'This link is invalid, expired or already used.')
    },

    /** Same answer whether or not the address has an unverified account. */
    async resendVerification(email: string, ip: string) {
      await enforceLimit(kv, `resend:ip:${ip}`, LIMITS.resendPerIp)
      await enforceLimit(kv, `resend:account:${accountKey(email)}`, LIMITS.resendPerAccount)
      const user = await repo.findUserByEmail(email)
      if (!user || user.emailVerifiedAt) return
      if (await withinLimit(kv, verifyMailKey(user.email), LIMITS.verifyMailsPerAccount)) {
        await mails.queue('verify-email', user, 'verify-email')
      }
    },

    /**
     * The verification mail again, asked by an operator for a user (ADR 055): the same mail and the
     * same per-address limit as the user's own request. False when nothing was sent (no such
     * account, already verified, or the limit reached).
     */
    async resendVerificationFor(userId: string): Promise<boolean> {
      const user = await repo.findUserById(userId)
      if (!user || user.emailVerifiedAt) return false
      if (!(await withinLimit(kv, verifyMailKey(user.email), LIMITS.verifyMailsPerAccount))) return false
      await mails.queue('verify-email', user, 'verify-email')
      return true
    },
  }
}
