import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import ipaddr from 'ipaddr.js'
import {
  DEFAULT_AVATAR,
  REFRESH_IDLE_REMEMBER_SECONDS,
  REFRESH_IDLE_SESSION_SECONDS,
  REFRESH_TTL_REMEMBER_SECONDS,
  REFRESH_TTL_SESSION_SECONDS,
  RESEND_COOLDOWN_SECONDS,
  RESET_LINK_TTL_MINUTES,
  type TokenPair,
  USERNAME_MAX,
  USERNAME_MIN,
  USERNAME_PATTERN,
  type UserInfo,
  VERIFY_LINK_TTL_MINUTES,
} from '#contracts/accounts.ts'
import { DEFAULT_LOCALE, isLocale, type Locale, localizePath } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { clearFailures, countFailure, enforceLimit, failuresReached, withinLimit } from '#server/lib/rate-limit.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { JobExecutor, JobPayloads, JobQueue } from '#server/modules/jobs/job-queue.ts'
import { type AccountMailKind, renderAccountMail, renderSecurityMail } from '#server/modules/mail/account-mail.ts'
import type { Mailer } from '#server/modules/mail/mailer.ts'
import { type AccessTokens, endedByMark, TOKENS_ENDED_KEY, TOKENS_ENDED_MARK_TTL_MS } from './access-token.ts'
import type { AccountChange, AuthRepo, AuthTx } from './auth.repo.ts'
import type { GoogleIdentity } from './google-sign-in.ts'
import type { HumanVerification } from './human-verification.ts'
import { hashPassword, passwordProblem, verifyPassword } from './passwords.ts'
import { isSiblingRefresh } from './refresh-grace.ts'

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

/** A username from a display name: allowed characters only, within the length bounds. */
export function usernameBase(name: string): string {
  const cleaned = [...name.normalize('NFKC').replace(/\s+/g, '_')].filter((c) => USERNAME_PATTERN.test(c)).join('')
  const trimmed = [...cleaned].slice(0, USERNAME_MAX - 5).join('')
  return [...trimmed].length >= USERNAME_MIN ? trimmed : `reader_${trimmed}`.slice(0, USERNAME_MAX - 5)
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')
const newSecret = () => randomBytes(32).toString('base64url')
const accountKey = (email: string) => sha256(email.trim().toLowerCase()).slice(0, 32)

/** A source that signed in to an account is known to it this long (no human check when under attack). */
const KNOWN_SOURCE_MS = 30 * 24 * 60 * MINUTE

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

export type SecurityEventLog = (event: string, info: Record<string, unknown>) => void

/**
 * When a login ends (ADR 019): a fixed time after its sign-in however active it is (`endsAt`), and
 * before that when it goes unused for the idle span (`expiresAt` of the token issued `now`).
 */
export function loginDeadlines(remember: boolean, startedAt: Date, now: Date) {
  const lifetime = remember ? REFRESH_TTL_REMEMBER_SECONDS : REFRESH_TTL_SESSION_SECONDS
  const idle = remember ? REFRESH_IDLE_REMEMBER_SECONDS : REFRESH_IDLE_SESSION_SECONDS
  const endsAt = new Date(startedAt.getTime() + lifetime * 1000)
  return { endsAt, expiresAt: new Date(Math.min(endsAt.getTime(), now.getTime() + idle * 1000)) }
}

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
}

export function createAuthService({
  repo,
  diamonds,
  kv,
  mailer,
  jobs,
  securityEvent,
  accessTokens,
  humanVerification,
  publicUrl,
}: AuthDeps) {
  /** Queues the mail (ADR 017): the request answers at once, and a mail server that is down delays it. */
  async function queueAccountMail(
    kind: AccountMailKind,
    user: { id: string },
    purpose: 'verify-email' | 'reset-password',
    executor?: JobExecutor,
  ) {
    await jobs.enqueue('account-mail', { userId: user.id, kind, purpose }, {}, executor)
  }

  /**
   * Sends an account mail with a fresh link. Its token is made here, when the mail leaves, so that
   * no usable link waits in the queue; each retry makes its own (an unused one simply expires).
   */
  async function sendAccountMail(
    kind: AccountMailKind,
    user: { id: string; email: string; username: string; locale: string },
    purpose: 'verify-email' | 'reset-password',
  ) {
    const token = newSecret()
    const minutes = purpose === 'verify-email' ? VERIFY_LINK_TTL_MINUTES : RESET_LINK_TTL_MINUTES
    await repo.insertEmailToken({
      userId: user.id,
      purpose,
      tokenHash: sha256(token),
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

  /**
   * A token pair for a new login (a new family, started now), or the next pair of a login being
   * refreshed: same family and start, so rotating never moves the login's end (ADR 019).
   */
  async function issueTokens(
    userId: string,
    remember: boolean,
    family: { id: string; startedAt: Date } = { id: randomUUID(), startedAt: new Date() },
  ): Promise<TokenPair> {
    const refreshToken = newSecret()
    await repo.insertRefreshToken({
      userId,
      familyId: family.id,
      tokenHash: sha256(refreshToken),
      remember,
      familyStartedAt: family.startedAt,
      expiresAt: loginDeadlines(remember, family.startedAt, new Date()).expiresAt,
    })
    return { token: await accessTokens.issue({ userId }), refreshToken }
  }

  /** Reset links (also in the "account exists" notice) share one cap per address. */
  const resetMailKey = (email: string) => `reset-mail:account:${accountKey(email)}`

  /** Someone registered an address that has an account: its owner gets a notice with a reset link, within the cap. */
  async function tellOwnerOfExistingAccount(user: { id: string; email: string }) {
    if (await withinLimit(kv, resetMailKey(user.email), LIMITS.resetMailsPerAccount)) {
      await queueAccountMail('account-exists', user, 'reset-password')
    }
  }

  /**
   * Ends the user's access tokens at once: the tokens-ended mark of "log out everywhere" (ADR 021).
   * Set before the refresh tokens are revoked, so a refresh racing with it is caught too.
   */
  async function endAccessTokens(userId: string): Promise<number> {
    const endedAt = Date.now()
    await kv.set(TOKENS_ENDED_KEY(userId), String(endedAt), TOKENS_ENDED_MARK_TTL_MS)
    return endedAt
  }

  /** The welcome diamonds, in the transaction that proves the address for the first time (once per account). */
  async function welcomeOnFirstVerification(tx: AuthTx, change: AccountChange) {
    if (change.firstVerified) await diamonds.grantSignup(change.userId, tx)
  }

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
      const human = await humanVerification.verify(input.turnstileToken, input.ip)
      if (!human.ok)
        throw new AppError(400, 'VERIFICATION_FAILED', `Verification failed: ${human.reason}`, { reason: human.reason })
      const problem = passwordProblem(input.password)
      if (problem) {
        throw new AppError(400, 'WEAK_PASSWORD', 'This password is not allowed.', [
          { path: 'password', message: problem, in: 'body' },
        ])
      }
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
      if (existing) return tellOwnerOfExistingAccount(existing)
      const user = await repo.createUser(
        { username: input.username, email: input.email.trim(), passwordHash, locale },
        (tx, created) => queueAccountMail('verify-email', created, 'verify-email', tx),
      )
      if (!user) {
        // Lost a race with a registration of the same name or address a moment ago.
        const registered = await repo.findUserByEmail(input.email)
        if (registered) return tellOwnerOfExistingAccount(registered)
        throw usernameTaken()
      }
      // The first verification mail counts toward the address's cap on them.
      await withinLimit(kv, `verify-mail:account:${accountKey(user.email)}`, LIMITS.verifyMailsPerAccount)
      // The verification mail's job was written with the account; the worker picks it up now.
      jobs.kick()
    },

    async verifyEmail(token: string, ip: string) {
      await enforceLimit(kv, `verify:ip:${ip}`, LIMITS.verifyPerIp)
      const verified = await repo.verifyEmail(sha256(token), welcomeOnFirstVerification)
      if (!verified) throw new AppError(400, 'INVALID_TOKEN', 'This link is invalid, expired or already used.')
    },

    /** Same answer whether or not the address has an unverified account. */
    async resendVerification(email: string, ip: string) {
      await enforceLimit(kv, `resend:ip:${ip}`, LIMITS.resendPerIp)
      await enforceLimit(kv, `resend:account:${accountKey(email)}`, LIMITS.resendPerAccount)
      const user = await repo.findUserByEmail(email)
      if (!user || user.emailVerifiedAt) return
      if (await withinLimit(kv, `verify-mail:account:${accountKey(user.email)}`, LIMITS.verifyMailsPerAccount)) {
        await queueAccountMail('verify-email', user, 'verify-email')
      }
    },

    /**
     * Logs in with a password (ADR 023). Only failures count against an account, per source: a
     * stranger's wrong guesses make the stranger's own source solve a human check, and make sources
     * the account never signed in from solve one once they pass the account's bound. The owner's
     * right password always gets in, at worst after one proof-of-work; nothing locks the account.
     */
    async login(input: {
      email: string
      password: string
      rememberMe: boolean
      turnstileToken?: string
      ip: string
    }): Promise<TokenPair> {
      const source = sourceOf(input.ip)
      const account = accountKey(input.email)
      // Every attempt from one source, first: bounds the hashing and credential stuffing from one place.
      await enforceLimit(kv, `login:ip:${source}`, LIMITS.loginPerIp)
      const failedHere = `login:failed:${account}:${source}`
      const failedEverywhere = `login:failed:${account}`
      const knownSource = `login:known:${account}:${source}`
      // The same for every address, registered or not: these keys exist for any address.
      const humanCheckNeeded =
        (await failuresReached(kv, failedHere, LIMITS.loginFailuresPerSource)) ||
        ((await failuresReached(kv, failedEverywhere, LIMITS.loginFailuresPerAccount)) && !(await kv.get(knownSource)))
      if (humanCheckNeeded) {
        if (!input.turnstileToken) {
          throw new AppError(
            403,
            'HUMAN_VERIFICATION_REQUIRED',
            'Too many failed logins to this account: solve the human verification and try again.',
          )
        }
        const human = await humanVerification.verify(input.turnstileToken, input.ip)
        if (!human.ok)
          throw new AppError(400, 'VERIFICATION_FAILED', `Verification failed: ${human.reason}`, {
            reason: human.reason,
          })
      }
      const user = await repo.findUserByEmail(input.email)
      const valid = await verifyPassword(user?.passwordHash ?? null, input.password)
      if (!user || !valid) {
        await countFailure(kv, failedHere, LIMITS.loginFailuresPerSource)
        await countFailure(kv, failedEverywhere, LIMITS.loginFailuresPerAccount)
        // The address as a hash: enough to see one account under attack, without the address itself.
        securityEvent('login.failed', { ip: input.ip, account, known: Boolean(user) })
        throw new AppError(401, 'INVALID_CREDENTIALS', 'The e-mail or password is wrong.')
      }
      // The right password: this source starts afresh and is known to the account from now on.
      await clearFailures(kv, failedHere)
      await kv.set(knownSource, '1', KNOWN_SOURCE_MS)
      if (!user.emailVerifiedAt) {
        throw new AppError(403, 'EMAIL_NOT_VERIFIED', 'Please verify your e-mail address first.')
      }
      return issueTokens(user.id, input.rememberMe)
    },

    /**
     * Trades a refresh token for a new pair. A token presented twice (it was copied) revokes its
     * whole family, so a thief and the victim are both signed out of that login; except a second
     * use within seconds of the first by a sibling request (two tabs refreshing together), which
     * gets a pair of its own (ADR 026). A login unused for the idle span, or older than its
     * lifetime, is refused: the person logs in again.
     */
    async refresh(refreshToken: string, ip: string): Promise<TokenPair> {
      await enforceLimit(kv, `refresh:ip:${ip}`, LIMITS.refreshPerIp)
      const tokenHash = sha256(refreshToken)
      const stored = await repo.findRefreshToken(tokenHash)
      if (!stored) throw AppError.unauthorized('Invalid refresh token')
      const reused = async (): Promise<never> => {
        await repo.revokeFamily(stored.familyId)
        securityEvent('refresh.reused', { ip, userId: stored.userId, familyId: stored.familyId })
        throw AppError.unauthorized('Invalid refresh token')
      }
      if (stored.revokedAt || (stored.usedAt && !isSiblingRefresh(stored, Date.now()))) await reused()
      const now = Date.now()
      // `expiresAt` is the idle deadline set when this token was issued; the family's end is checked
      // on its own too, so tokens issued under a longer lifetime stop at the current one.
      const { endsAt } = loginDeadlines(stored.remember, stored.familyStartedAt, new Date(now))
      if (stored.expiresAt.getTime() <= now || endsAt.getTime() <= now) {
        throw AppError.unauthorized('Expired refresh token')
      }
      // Two requests that read the token unused race to mark it used: the loser is a sibling too,
      // when the winner's use is what it finds (a revoked token is not).
      if (!stored.usedAt && !(await repo.consumeRefreshToken(stored.id))) {
        const latest = await repo.findRefreshToken(tokenHash)
        if (!latest || !isSiblingRefresh(latest, Date.now())) await reused()
      }
      const pair = await issueTokens(stored.userId, stored.remember, {
        id: stored.familyId,
        startedAt: stored.familyStartedAt,
      })
      // A "log out everywhere" running at this very moment may have revoked the user's tokens just
      // before the new one was written. Its mark is set before it revokes, so reading it after the
      // write catches that case: the login started before the mark, so it has ended (ADR 021).
      if (endedByMark(stored.familyStartedAt.getTime(), await kv.get(TOKENS_ENDED_KEY(stored.userId)))) {
        await repo.revokeFamily(stored.familyId)
        throw AppError.unauthorized('Invalid refresh token')
      }
      return pair
    },

    /** At startup: the look (skeleton) of usernames stored before it was kept (ADR 022). */
    async backfillUsernameSkeletons() {
      return repo.backfillUsernameSkeletons()
    },

    /** The hourly `expired-tokens` job: the privacy policy keeps sign-in tokens and links only until they expire. */
    async deleteSpentTokens() {
      return repo.deleteSpentTokens()
    },

    /** Ends this login (its refresh token family). Unknown tokens are ignored: the result is the same. */
    async logout(refreshToken: string) {
      const stored = await repo.findRefreshToken(sha256(refreshToken))
      if (stored) await repo.revokeFamily(stored.familyId)
    },

    /**
     * "Log out everywhere" (ADR 021): ends every login of the user, this one included. The mark in
     * the key-value store comes first, so the access tokens already handed out stop at once (the
     * authentication plugin reads it) and a refresh racing with this call is caught; then every
     * refresh token is revoked. A login made afterwards is issued after the mark and works.
     */
    async logoutAll(userId: string, ip: string): Promise<{ loginsEnded: number }> {
      await enforceLimit(kv, `logout-all:ip:${ip}`, LIMITS.logoutAllPerIp)
      await enforceLimit(kv, `logout-all:user:${userId}`, LIMITS.logoutAllPerUser)
      await kv.set(TOKENS_ENDED_KEY(userId), String(Date.now()), TOKENS_ENDED_MARK_TTL_MS)
      const loginsEnded = await repo.revokeAllForUser(userId)
      securityEvent('logout.all', { ip, userId, loginsEnded })
      return { loginsEnded }
    },

    /**
     * Mails a reset link. The same answer for any address, and no refusal per address: over the
     * address's mail cap nothing is sent, and the links already sent in the window still work.
     */
    async requestPasswordReset(email: string, ip: string) {
      await enforceLimit(kv, `reset:ip:${ip}`, LIMITS.resetPerIp)
      const user = await repo.findUserByEmail(email)
      if (user && (await withinLimit(kv, resetMailKey(user.email), LIMITS.resetMailsPerAccount))) {
        await queueAccountMail('reset-password', user, 'reset-password')
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
      const problem = passwordProblem(password)
      if (problem) {
        throw new AppError(400, 'WEAK_PASSWORD', 'This password is not allowed.', [
          { path: 'password', message: problem, in: 'body' },
        ])
      }
      // Hashed before the transaction, so it does not hold the database during the slow hash.
      const passwordHash = await hashPassword(password)
      const changedAt = new Date()
      const userId = await repo.resetPassword(sha256(token), passwordHash, async (tx, change) => {
        await endAccessTokens(change.userId)
        await jobs.enqueue(
          'security-mail',
          { userId: change.userId, event: 'password-changed', at: changedAt.toISOString() },
          {},
          tx,
        )
        await welcomeOnFirstVerification(tx, change)
      })
      if (!userId) throw new AppError(400, 'INVALID_TOKEN', 'This link is invalid, expired or already used.')
      jobs.kick()
      securityEvent('password.reset', { ip, userId })
    },

    /**
     * Signs in with a Google identity: the account already linked to it; else the account with the
     * same e-mail when Google says that address is verified (and links it); else a new account.
     * An account whose address was never verified is not its owner's yet (anyone can register any
     * address): the Google identity proves the address, so the account becomes its, without the
     * password someone else may have set and with every login ended (ADR 022).
     */
    async signInWithGoogle(identity: GoogleIdentity, locale: string): Promise<TokenPair> {
      const linked = await repo.findUserByGoogleSubject(identity.subject)
      if (linked) return issueTokens(linked.id, true)
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
            endedAt = await endAccessTokens(change.userId)
            await welcomeOnFirstVerification(tx, change)
          },
        )
        if (takenOver) {
          securityEvent('google.took-over-unverified', {
            userId: byEmail.id,
            hadPassword: Boolean(byEmail.passwordHash),
          })
          // The new login must start after the mark, or the mark would end it too.
          while (Date.now() <= endedAt) await sleep(1)
          return issueTokens(byEmail.id, true)
        }
        // Verified (perhaps a moment ago, by its owner's link): the password is the owner's and stays.
        if (!(await repo.linkGoogle(byEmail.id, identity.subject))) {
          throw AppError.conflict('The account changed during sign-in; please try again.')
        }
        return issueTokens(byEmail.id, true)
      }
      const base = usernameBase(identity.name ?? identity.email.split('@')[0] ?? 'reader')
      for (let attempt = 0; attempt < 6; attempt++) {
        const username = attempt === 0 ? base : `${base.slice(0, USERNAME_MAX - 5)}_${randomBytes(2).toString('hex')}`
        const user = await repo.createGoogleUser(
          { username, email: identity.email, googleSubject: identity.subject, locale: mailLocale },
          welcomeOnFirstVerification,
        )
        if (user) return issueTokens(user.id, true)
      }
      throw new AppError(409, 'USERNAME_TAKEN', 'No free username could be found; please register with e-mail.')
    },

    /**
     * The `account-mail` job. Nothing is sent to an account deleted meanwhile, nor a verification
     * link to an address verified meanwhile.
     */
    async deliverAccountMail(job: JobPayloads['account-mail']) {
      const user = await repo.findUserById(job.userId)
      if (!user) return
      if (job.purpose === 'verify-email' && user.emailVerifiedAt) return
      await sendAccountMail(job.kind, user, job.purpose)
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
          link: `${publicUrl}${localizePath(locale, '/forgot-password')}`,
        }),
      })
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
