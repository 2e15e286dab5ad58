import type { Audit } from '#contracts/admin-audit.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { clearFailures, countFailure, failuresReached, type Limit } from '#server/lib/rate-limit.ts'
import type { UsersService } from '#server/modules/users/users.service.ts'
import { type ConsoleSessions, FRESH_CONFIRMATION_MS } from './console-sessions.ts'
import type { StaffRepo, StaffRole } from './staff.repo.ts'
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, type SecretBox, totpStep, totpUri } from './totp.ts'

/** Wrong codes per account and source (ADR 023's rule: a stranger elsewhere cannot lock the owner out). */
export const SECOND_FACTOR_FAILURES: Limit = { max: 5, windowMs: 15 * 60_000 }

export const STAFF_ROLES = ['admin', 'moderator'] as const
/** Who may do what: an admin may everything a moderator may. */
export const roleAllows = (role: StaffRole | null, needed: StaffRole) =>
  role === 'admin' || (role === 'moderator' && needed === 'moderator')

export type StaffActor = { actorId: string }

const invalidCode = () => new AppError(403, 'INVALID_SECOND_FACTOR_CODE', 'The code is wrong, expired or already used.')

export function createStaffService(deps: {
  repo: StaffRepo
  users: UsersService
  audit: Audit
  secrets: SecretBox
  sessions: ConsoleSessions
  kv: KeyValueStore
  now?: () => number
}) {
  const { repo, users, audit, secrets, sessions, kv } = deps
  const now = deps.now ?? (() => Date.now())

  async function userOf(email: string): Promise<string> {
    const userId = await users.idByEmail(email)
    if (!userId) throw AppError.notFound(`No account has the e-mail address ${email}.`)
    return userId
  }

  /** Checks a wrong-code budget, runs `check`, counts a failure when it fails. */
  async function limited(userId: string, source: string, check: () => Promise<boolean>): Promise<void> {
    const limitKey = `staff-2fa:${userId}:${source}`
    if (await failuresReached(kv, limitKey, SECOND_FACTOR_FAILURES)) {
      throw new AppError(429, 'RATE_LIMITED', 'Too many wrong codes. Please wait and try again.', {
        retryAfterSeconds: SECOND_FACTOR_FAILURES.windowMs / 1000,
      })
    }
    if (await check()) {
      await clearFailures(kv, limitKey)
      return
    }
    await countFailure(kv, limitKey, SECOND_FACTOR_FAILURES)
    throw invalidCode()
  }

  /** A current TOTP code of an enabled factor, each step accepted once. */
  async function totpAccepted(userId: string, code: string): Promise<boolean> {
    const factor = await repo.secondFactorOf(userId)
    if (!factor?.enabledAt) return false
    const step = totpStep(secrets.open(factor.secretEncrypted), code.trim(), now())
    return step !== null && repo.acceptStep(repo.db, userId, step, false)
  }

  return {
    roleOf: (userId: string) => repo.roleOf(userId),
    list: () => repo.list(),

    /** Makes the account of `email` staff with `role` (audited); the role it had before. */
    async grant(email: string, role: StaffRole, actor: StaffActor, note = '') {
      const userId = await userOf(email)
      if (userId === actor.actorId) throw AppError.conflict('Staff cannot change their own role.')
      return repo.transaction(async (tx) => {
        const before = await repo.grant(tx, userId, role, actor.actorId)
        await audit(tx, {
          ...actor,
          action: 'staff.grant',
          targetType: 'staff',
          targetId: userId,
          note,
          details: { email, role, before },
        })
        return { userId, role, before }
      })
    },

    /** Ends the staff role of `email` and its second factor (audited); effective on the next request. */
    async revoke(email: string, actor: StaffActor, note = '') {
      const userId = await userOf(email)
      if (userId === actor.actorId) throw AppError.conflict('Staff cannot change their own role.')
      return repo.transaction(async (tx) => {
        const before = await repo.revoke(tx, userId)
        if (before === null) throw AppError.notFound(`${email} is not staff.`)
        await audit(tx, {
          ...actor,
          action: 'staff.revoke',
          targetType: 'staff',
          targetId: userId,
          note,
          details: { email, before },
        })
        return { userId, before }
      })
    },

    /** Removes a staff member's second factor so they enroll again (a lost phone; audited). */
    async resetSecondFactor(email: string, actor: StaffActor, note = '') {
      const userId = await userOf(email)
      return repo.transaction(async (tx) => {
        const had = await repo.resetSecondFactor(tx, userId)
        await audit(tx, {
          ...actor,
          action: 'staff.2fa-reset',
          targetType: 'staff',
          targetId: userId,
          note,
          details: { email, had },
        })
        return { userId, had }
      })
    },

    async state(userId: string, consoleToken: string | undefined) {
      const [role, factor, session, recoveryCodesLeft] = await Promise.all([
        repo.roleOf(userId),
        repo.secondFactorOf(userId),
        sessions.find(userId, consoleToken),
        repo.recoveryCodesLeft(userId),
      ])
      return {
        role,
        secondFactor: factor?.enabledAt ? ('enabled' as const) : ('none' as const),
        unlocked: session !== null,
        confirmedUntil: session ? new Date(session.confirmedAt + FRESH_CONFIRMATION_MS).toISOString() : null,
        recoveryCodesLeft,
      }
    },

    /** A new secret to enroll (replacing one not yet confirmed); refused once a factor is enabled. */
    async setup(userId: string, label: string) {
      const secret = newTotpSecret()
      if (!(await repo.saveSecret(userId, secrets.seal(secret)))) {
        throw AppError.conflict('A second factor is already enabled; an admin can reset it.')
      }
      return { secret, uri: totpUri(secret, label) }
    },

    /** The first code confirms the enrollment: ten recovery codes, shown once, and the console opens. */
    async enable(userId: string, code: string, source: string) {
      const factor = await repo.secondFactorOf(userId)
      if (!factor) throw AppError.conflict('Set up the second factor first.')
      if (factor.enabledAt) throw AppError.conflict('The second factor is already enabled.')
      const codes = newRecoveryCodes()
      let enabled = false
      await limited(userId, source, async () => {
        const step = totpStep(secrets.open(factor.secretEncrypted), code.trim(), now())
        if (step === null) return false
        enabled = await repo.transaction(async (tx) => {
          if (!(await repo.acceptStep(tx, userId, step, true))) return false
          await repo.replaceRecoveryCodes(tx, userId, codes.map(recoveryCodeHash))
          await audit(tx, {
            actorId: userId,
            action: 'staff.2fa-enable',
            targetType: 'staff',
            targetId: userId,
            note: '',
          })
          return true
        })
        return enabled
      })
      return { recoveryCodes: codes, consoleToken: await sessions.open(userId) }
    },

    /** A TOTP code or an unused recovery code opens the console for this login (a console token). */
    async verify(userId: string, code: string, source: string) {
      const factor = await repo.secondFactorOf(userId)
      if (!factor?.enabledAt) throw new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Set up the second factor first.')
      let usedRecovery = false
      await limited(userId, source, async () => {
        if (/^\s*\d{6}\s*$/.test(code)) return totpAccepted(userId, code)
        usedRecovery = await repo.spendRecoveryCode(userId, recoveryCodeHash(code))
        return usedRecovery
      })
      return { consoleToken: await sessions.open(userId), usedRecoveryCode: usedRecovery }
    },

    /** A fresh TOTP code for sensitive actions (recovery codes do not count here). */
    async confirm(userId: string, consoleToken: string, code: string, source: string) {
      const session = await sessions.find(userId, consoleToken)
      if (!session) throw new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Verify the second factor first.')
      await limited(userId, source, () => totpAccepted(userId, code))
      await sessions.confirm(consoleToken, session)
    },
  }
}

export type StaffService = ReturnType<typeof createStaffService>
