import type { TokenPair } from '#contracts/accounts.ts'
import { isLocale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { clearFailures, countFailure, enforceLimit, failuresReached } from '#server/lib/rate-limit.ts'
import { accountKey, LIMITS, sourceOf } from './abuse-limits.ts'
import type { AuthRepo } from './auth.repo.ts'
import { type HumanVerification, requireHuman } from './human-verification.ts'
import { verifyPassword } from './passwords.ts'
import type { SecurityEventLog, Sessions } from './sessions.ts'

/** A source that signed in to an account is known to it this long (no human check when under attack). */
export const KNOWN_SOURCE_MS = 30 * 24 * 60 * 60_000

/**
 * The throttling of logins to one address from one source (ADR 023). Only failures count against
 * an account, per source: a stranger's wrong guesses make the stranger's own source solve a human
 * check, and make sources the account never signed in from solve one once they pass the account's
 * bound. The keys are the same for every address, registered or not.
 */
export function loginThrottle(kv: KeyValueStore, email: string, ip: string) {
  const account = accountKey(email)
  const source = sourceOf(ip)
  const failedHere = `login:failed:${account}:${source}`
  const failedEverywhere = `login:failed:${account}`
  const knownSource = `login:known:${account}:${source}`
  return {
    account,
    /** Every attempt from one source, first: bounds the hashing and credential stuffing from one place. */
    async countAttempt() {
      await enforceLimit(kv, `login:ip:${source}`, LIMITS.loginPerIp)
    },
    async humanCheckNeeded(): Promise<boolean> {
      return (
        (await failuresReached(kv, failedHere, LIMITS.loginFailuresPerSource)) ||
        ((await failuresReached(kv, failedEverywhere, LIMITS.loginFailuresPerAccount)) && !(await kv.get(knownSource)))
      )
    },
    async failed() {
      await countFailure(kv, failedHere, LIMITS.loginFailuresPerSource)
      await countFailure(kv, failedEverywhere, LIMITS.loginFailuresPerAccount)
    },
    /** The right password: this source starts afresh and is known to the account from now on. */
    async succeeded() {
      await clearFailures(kv, failedHere)
      await kv.set(knownSource, '1', KNOWN_SOURCE_MS)
    },
  }
}

export function createLogin(deps: {
  repo: AuthRepo
  kv: KeyValueStore
  humanVerification: Pick<HumanVerification, 'verify'>
  sessions: Pick<Sessions, 'issue'>
  securityEvent: SecurityEventLog
}) {
  const { repo, kv, humanVerification, sessions, securityEvent } = deps
  return {
    /**
     * Logs in with a password (ADR 023). The owner's right password always gets in, at worst after
     * one proof-of-work; nothing locks the account.
     */
    async login(input: {
      email: string
      password: string
      rememberMe: boolean
      turnstileToken?: string
      /** The language the person logs in in: their mails' language from now on. */
      locale?: string
      ip: string
    }): Promise<TokenPair> {
      const throttle = loginThrottle(kv, input.email, input.ip)
      await throttle.countAttempt()
      if (await throttle.humanCheckNeeded()) {
        if (!input.turnstileToken) {
          throw new AppError(
            403,
            'HUMAN_VERIFICATION_REQUIRED',
            'Too many failed logins to this account: solve the human verification and try again.',
          )
        }
        await requireHuman(humanVerification, input.turnstileToken, input.ip)
      }
      const user = await repo.findUserByEmail(input.email)
      const valid = await verifyPassword(user?.passwordHash ?? null, input.password)
      if (!user || !valid) {
        await throttle.failed()
        // The address as a hash: enough to see one account under attack, without the address itself.
        securityEvent('login.failed', { ip: input.ip, account: throttle.account, known: Boolean(user) })
        throw new AppError(401, 'INVALID_CREDENTIALS', 'The e-mail or password is wrong.')
      }
      await throttle.succeeded()
      // Also before the address is proven: the verification mail they may ask for next is in it.
      if (isLocale(input.locale)) await repo.setLocale(user.id, input.locale)
      if (!user.emailVerifiedAt) {
        throw new AppError(403, 'EMAIL_NOT_VERIFIED', 'Please verify your e-mail address first.')
      }
      return sessions.issue(user.id, input.rememberMe)
    },
  }
}
