import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { type TokenPair, USERNAME_MAX, USERNAME_MIN, USERNAME_PATTERN } from '#contracts/accounts.ts'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { AuthRepo } from './auth.repo.ts'
import type { GoogleIdentity } from './google-sign-in.ts'
import { welcomeOnFirstVerification } from './registration.ts'
import type { SecurityEventLog, Sessions } from './sessions.ts'

// Which account a Google identity signs in to. The OpenID Connect exchange that proves the
// identity is google-sign-in.ts.

/** A username from a display name: allowed characters only, within the length bounds. */
export function usernameBase(name: string): string {
  const cleaned = [...name.normalize('NFKC').replace(/\s+/g, '_')].filter((c) => USERNAME_PATTERN.test(c)).join('')
  const trimmed = [...cleaned].slice(0, USERNAME_MAX - 5).join('')
  return [...trimmed].length >= USERNAME_MIN ? trimmed : `reader_${trimmed}`.slice(0, USERNAME_MAX - 5)
}

export function createGoogleAccounts(deps: {
  repo: AuthRepo
  sessions: Pick<Sessions, 'issue' | 'endAccessTokens'>
  diamonds: Pick<DiamondsService, 'grantSignup'>
  securityEvent: SecurityEventLog
}) {
  const { repo, sessions, securityEvent } = deps
  const welcome = welcomeOnFirstVerification(deps.diamonds)

  return {
    /**
     * Signs in with a Google identity: the account already linked to it; else the account with the
     * same e-mail when Google says that address is verified (and links it); else a new account.
     * An account whose address was never verified is not its owner's yet (anyone can register any
     * address): the Google identity proves the address, so the account becomes its, without the
     * password someone else may have set and with every login ended (ADR 022).
     */
    async signInWithGoogle(identity: GoogleIdentity, locale: string | undefined): Promise<TokenPair> {
      const linked = await repo.findUserByGoogleSubject(identity.subject)
      if (linked) {
        // Signing in again in another language: the mails follow it.
        if (isLocale(locale)) await repo.setLocale(linked.id, locale)
        return sessions.issue(linked.id, true)
      }
      if (!identity.email || !identity.emailVerified) {
        throw new AppError(400, 'INVALID_TOKEN', 'Google did not confirm an e-mail address for this account.')
      }
      const mailLocale = isLocale(locale) ? locale : DEFAULT_LOCALE
      const byEmail = await repo.findUserByEmail(identity.email)
      if (byEmail) {
        let endedAt = 0
        const takenOver = await repo.takeOverUnverified(
          byEmail.id,
          { googleSubject: identity.subject, locale: mailLocale },
          async (tx, change) => {
            endedAt = await sessions.endAccessTokens(change.userId)
            await welcome(tx, change)
          },
        )
        if (takenOver) {
          securityEvent('google.took-over-unverified', {
            userId: byEmail.id,
            hadPassword: Boolean(byEmail.passwordHash),
          })
          // The new login must start after the mark, or the mark would end it too.
          while (Date.now() <= endedAt) await sleep(1)
          return sessions.issue(byEmail.id, true)
        }
        // Verified (perhaps a moment ago, by its owner's link): the password is the owner's and stays.
        if (!(await repo.linkGoogle(byEmail.id, identity.subject))) {
          throw AppError.conflict('The account changed during sign-in; please try again.')
        }
        if (isLocale(locale)) await repo.setLocale(byEmail.id, locale)
        return sessions.issue(byEmail.id, true)
      }
      const base = usernameBase(identity.name ?? identity.email.split('@')[0] ?? 'reader')
      for (let attempt = 0; attempt < 6; attempt++) {
        const username = attempt === 0 ? base : `${base.slice(0, USERNAME_MAX - 5)}_${randomBytes(2).toString('hex')}`
        const user = await repo.createGoogleUser(
          { username, email: identity.email, googleSubject: identity.subject, locale: mailLocale },
          welcome,
        )
        if (user) return sessions.issue(user.id, true)
      }
      throw new AppError(409, 'USERNAME_TAKEN', 'No free username could be found; please register with e-mail.')
    },
  }
}
