import { DEFAULT_AVATAR, type UserInfo } from '#contracts/accounts.ts'
import { isLocale } from '#contracts/locales.ts'
import type { Tx } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'
import type { Mailer } from '#server/modules/mail/mailer.ts'
import type { AccessTokens } from './access-token.ts'
import type { AuthRepo } from './auth.repo.ts'
import { createAuthMails } from './auth-mails.ts'
import { createGoogleAccounts } from './google-accounts.ts'
import type { HumanVerification } from './human-verification.ts'
import { createLogin } from './login.ts'
import { createPasswordReset } from './password-reset.ts'
import { createRegistration } from './registration.ts'
import { createSessions, type SecurityEventLog } from './sessions.ts'

export type { SecurityEventLog }

export type AuthDeps = {
  repo: AuthRepo
  diamonds: DiamondsService
  kv: KeyValueStore
  mailer: Mailer
  jobs: Pick<JobQueue, 'enqueue' | 'kick'>
  /** Failed logins, reused refresh tokens, password resets, "log out everywhere": logged for an operator (ASVS 7.2). */
  securityEvent: SecurityEventLog
  accessTokens: AccessTokens
  humanVerification: HumanVerification
  publicUrl: string
  suspensions: { isSuspended(userId: string): Promise<boolean> }
}

/**
 * Accounts and logins, composed of one part per flow (server/modules/auth/README.md): registration
 * and e-mail proof, password login with its throttling, sessions (refresh, logout), password reset,
 * Google sign-in, and the account mails they queue.
 */
export function createAuthService(deps: AuthDeps) {
  const { repo, diamonds } = deps
  const sessions = createSessions(deps)
  const mails = createAuthMails(deps)
  const registration = createRegistration({ ...deps, mails })
  const login = createLogin({ ...deps, sessions })
  const passwordReset = createPasswordReset({ ...deps, mails, sessions })
  const google = createGoogleAccounts({ ...deps, sessions })

  return {
    register: registration.register,
    verifyEmail: registration.verifyEmail,
    resendVerification: registration.resendVerification,
    login: login.login,
    refresh: sessions.refresh,
    logout: sessions.logout,
    logoutAll: sessions.logoutAll,
    endAllLogins: sessions.endAllLogins,
    /**
     * An operator's warning by mail, in the user's language with the operator's note quoted
     * (ADR 055); queued in the caller's transaction, so it goes only if the warning is stored.
     */
    async queueWarningMail(userId: string, note: string, tx: Tx) {
      await deps.jobs.enqueue('security-mail', { userId, event: 'warning', at: new Date().toISOString(), note }, {}, tx)
    },
    kickJobs: () => deps.jobs.kick(),
    resendVerificationFor: registration.resendVerificationFor,
    deleteSpentTokens: sessions.deleteSpentTokens,
    requestPasswordReset: passwordReset.requestPasswordReset,
    resetPassword: passwordReset.resetPassword,
    signInWithGoogle: google.signInWithGoogle,
    deliverAccountMail: mails.deliverAccountMail,
    deliverSecurityMail: mails.deliverSecurityMail,

    /** At startup: the look (skeleton) of usernames stored before it was kept (ADR 022). */
    async backfillUsernameSkeletons() {
      return repo.backfillUsernameSkeletons()
    },

    /**
     * The language the signed-in person now uses (the `lang` cookie, which the language selector
     * writes) becomes the language of their mails, instead of the one they registered in.
     */
    async rememberLocale(userId: string, locale: string | undefined): Promise<void> {
      if (isLocale(locale)) await repo.setLocale(userId, locale)
    },

    async userInfo(userId: string): Promise<UserInfo> {
      const user = await repo.findUserById(userId)
      if (!user) throw AppError.unauthorized()
      return {
        username: user.username,
        email: user.email,
        avatar: user.avatarUrl ?? DEFAULT_AVATAR,
        balance: await diamonds.balanceOf(user.id),
        showAdultContent: user.showAdultContent,
      }
    },
  }
}

export type AuthService = ReturnType<typeof createAuthService>
