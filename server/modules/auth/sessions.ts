import { randomUUID } from 'node:crypto'
import {
  REFRESH_IDLE_REMEMBER_SECONDS,
  REFRESH_IDLE_SESSION_SECONDS,
  REFRESH_TTL_REMEMBER_SECONDS,
  REFRESH_TTL_SESSION_SECONDS,
  type TokenPair,
} from '#contracts/accounts.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { LIMITS } from './abuse-limits.ts'
import { type AccessTokens, endedByMark, TOKENS_ENDED_KEY, TOKENS_ENDED_MARK_TTL_MS } from './access-token.ts'
import type { AuthRepo } from './auth.repo.ts'
import { isSiblingRefresh } from './refresh-grace.ts'
import { newSecret, secretHash } from './secrets.ts'

// Logins (ADR 008, 019, 021, 026): a login is a family of refresh tokens, each used once, with an
// idle deadline and a lifetime; access tokens are short and stateless, ended early by a mark.

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

export function createSessions(deps: {
  repo: AuthRepo
  kv: KeyValueStore
  accessTokens: AccessTokens
  securityEvent: SecurityEventLog
  /** Whether an operator suspended the account (ADR 055): no login of any kind starts or renews. */
  suspensions: { isSuspended(userId: string): Promise<boolean> }
}) {
  const { repo, kv, accessTokens, securityEvent, suspensions } = deps

  /**
   * A token pair for a new login (a new family, started now), or the next pair of a login being
   * refreshed: same family and start, so rotating never moves the login's end (ADR 019).
   */
  async function issue(
    userId: string,
    remember: boolean,
    family: { id: string; startedAt: Date } = { id: randomUUID(), startedAt: new Date() },
  ): Promise<TokenPair> {
    // Every way in (password, Google, refresh) ends here, after its own proof: a suspended account
    // learns it only once it has shown it is its owner (ADR 055).
    if (await suspensions.isSuspended(userId)) {
      throw new AppError(403, 'ACCOUNT_SUSPENDED', 'This account is suspended.')
    }
    const refreshToken = newSecret()
    await repo.insertRefreshToken({
      userId,
      familyId: family.id,
      tokenHash: secretHash(refreshToken),
      remember,
      familyStartedAt: family.startedAt,
      expiresAt: loginDeadlines(remember, family.startedAt, new Date()).expiresAt,
    })
    return { token: await accessTokens.issue({ userId }), refreshToken }
  }

  /**
   * Ends the user's access tokens at once: the tokens-ended mark of "log out everywhere" (ADR 021).
   * Set before the refresh tokens are revoked, so a refresh racing with it is caught too. Returns
   * the mark's time: a login started in the same millisecond would count as ended.
   */
  async function endAccessTokens(userId: string): Promise<number> {
    const endedAt = Date.now()
    await kv.set(TOKENS_ENDED_KEY(userId), String(endedAt), TOKENS_ENDED_MARK_TTL_MS)
    return endedAt
  }

  return {
    issue,
    endAccessTokens,

    /**
     * Trades a refresh token for a new pair. A token presented twice (it was copied) revokes its
     * whole family, so a thief and the victim are both signed out of that login; except a second
     * use within seconds of the first by a sibling request (two tabs refreshing together), which
     * gets a pair of its own (ADR 026). A login unused for the idle span, or older than its
     * lifetime, is refused: the person logs in again.
     */
    async refresh(refreshToken: string, ip: string): Promise<TokenPair> {
      await enforceLimit(kv, `refresh:ip:${ip}`, LIMITS.refreshPerIp)
      const tokenHash = secretHash(refreshToken)
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
      const pair = await issue(stored.userId, stored.remember, {
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

    /** Ends this login (its refresh token family). Unknown tokens are ignored: the result is the same. */
    async logout(refreshToken: string) {
      const stored = await repo.findRefreshToken(secretHash(refreshToken))
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
      await endAccessTokens(userId)
      const loginsEnded = await repo.revokeAllForUser(userId)
      securityEvent('logout.all', { ip, userId, loginsEnded })
      return { loginsEnded }
    },

    /**
     * Ends every login of the user at once, for an operator (a suspension, ADR 055): the mark, then
     * every refresh token, as "log out everywhere" does but without its rate limits.
     */
    async endAllLogins(userId: string): Promise<{ loginsEnded: number }> {
      await endAccessTokens(userId)
      const loginsEnded = await repo.revokeAllForUser(userId)
      securityEvent('logins.ended-by-operator', { userId, loginsEnded })
      return { loginsEnded }
    },

    /** The hourly `expired-tokens` job: the privacy policy keeps sign-in tokens and links only until they expire. */
    async deleteSpentTokens() {
      return repo.deleteSpentTokens()
    },
  }
}

export type Sessions = ReturnType<typeof createSessions>
