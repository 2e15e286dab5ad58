import { randomUUID } from 'node:crypto'
import type { Tx } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import { type Actor, requireNote } from './character-actions.ts'
import type { ModerationDeps } from './moderation.service.ts'

const SEARCH_LIMIT = 50
const LEDGER_LIMIT = 50
const REPORTS_LIMIT = 50
/** The most one operator action may grant or deduct. */
const MAX_ADJUSTMENT = 1_000_000

/**
 * People (ADR 055): search, a person's detail (never their chats), suspend and restore, delete,
 * resend verification, warn, grant or deduct diamonds.
 */
export function createPeople(
  deps: Pick<
    ModerationDeps,
    | 'db'
    | 'audit'
    | 'people'
    | 'suspensions'
    | 'hides'
    | 'warnings'
    | 'reports'
    | 'catalogue'
    | 'auth'
    | 'account'
    | 'diamonds'
  >,
) {
  const { db, audit, people, suspensions, hides, warnings, reports, catalogue, auth, account, diamonds } = deps

  async function accountOf(userId: string) {
    const row = await people.account(userId)
    if (!row) throw AppError.notFound('No such user')
    return row
  }

  /**
   * Suspends in the caller's transaction: the suspension row, the creator's public characters
   * hidden, the audit record. The logins end after the commit (`endLogins`). False when already.
   */
  async function suspendIn(tx: Tx, userId: string, actor: Actor, details?: Record<string, unknown>) {
    const suspended = await suspensions.suspend(tx, { userId, note: actor.note, actorId: actor.actorId })
    if (!suspended) return false
    const hidden = await hides.hideCreatorsCharacters(tx, userId, actor.note, actor.actorId)
    await audit(tx, {
      actorId: actor.actorId,
      action: 'user.suspend',
      targetType: 'user',
      targetId: userId,
      note: actor.note,
      details: { ...details, charactersHidden: hidden.length },
    })
    return true
  }

  /** After a suspension commits: every access token refused from now on, every refresh token revoked. */
  async function endLogins(userId: string) {
    await auth.endAllLogins(userId)
    await catalogue.invalidateListings()
  }

  /** Stores a warning in the caller's transaction with its audit record; the mail goes after the commit. */
  async function warnIn(
    tx: Tx,
    userId: string,
    roleId: number | null,
    actor: Actor,
    details?: Record<string, unknown>,
  ) {
    const id = await warnings.add(tx, { userId, roleId, note: actor.note, actorId: actor.actorId })
    await auth.queueWarningMail(userId, actor.note, tx)
    await audit(tx, {
      actorId: actor.actorId,
      action: 'user.warn',
      targetType: 'user',
      targetId: userId,
      note: actor.note,
      details: { ...details, warningId: id },
    })
    return id
  }

  /** One page of the search (id, e-mail exact or prefix, username prefix); `hasMore` read as one extra row. */
  async function searchPeoplePage(query: string, page: number, pageSize: number) {
    const text = query.trim()
    if (text.length === 0) return { items: [], page, pageSize, hasMore: false }
    const rows = await people.search(text.slice(0, 320), pageSize + 1, (page - 1) * pageSize)
    const shown = rows.slice(0, pageSize)
    const suspended = await suspensions.suspendedAmong(shown.map((row) => row.id))
    const items = shown.map((row) => ({
      suspended: suspended.has(row.id),
      ...row,
      emailVerifiedAt: row.emailVerifiedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
    }))
    return { items, page, pageSize, hasMore: rows.length > pageSize }
  }

  return {
    suspendIn,
    endLogins,
    warnIn,
    /** The warning mail was queued in a transaction: sends it now rather than at the next poll. */
    kickMail: () => auth.kickJobs(),

    /** Users by id, e-mail (exact or prefix) or username (prefix): the first page. */
    searchPeople: async (query: string) => (await searchPeoplePage(query, 1, SEARCH_LIMIT)).items,
    searchPeoplePage,

    /** A person's account, plan, balance and recent ledger, characters, reports made and received. No chat. */
    async personDetail(userId: string) {
      const row = await accountOf(userId)
      const [suspension, plan, money, characters, made, received, warned] = await Promise.all([
        suspensions.suspensionOf(userId),
        people.currentSubscription(userId),
        people.balanceAndLedger(userId, LEDGER_LIMIT),
        people.characters(userId),
        reports.madeBy(userId, REPORTS_LIMIT),
        reports.aboutCreator(userId, REPORTS_LIMIT),
        warnings.of(userId, REPORTS_LIMIT),
      ])
      const causes = new Map(
        await Promise.all(characters.map(async (c) => [c.id, await hides.causesOf(c.id)] as const)),
      )
      return {
        account: {
          ...row,
          emailVerifiedAt: row.emailVerifiedAt?.toISOString() ?? null,
          createdAt: row.createdAt.toISOString(),
        },
        suspended: suspension
          ? { note: suspension.note, by: suspension.actorId, at: suspension.createdAt.toISOString() }
          : null,
        plan: plan ? { ...plan, currentPeriodEnd: plan.currentPeriodEnd.toISOString() } : null,
        balance: money.balance,
        ledger: money.ledger.map((entry) => ({ ...entry, createdAt: entry.createdAt.toISOString() })),
        characters: characters.map(({ id, ...c }) => ({
          ...c,
          hiddenBy: causes.get(id) ?? [],
          createdAt: c.createdAt.toISOString(),
        })),
        reportsMade: made.map((r) => ({
          ...r,
          createdAt: r.createdAt.toISOString(),
          handledAt: r.handledAt?.toISOString() ?? null,
        })),
        reportsReceived: received.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
        warnings: warned.map((w) => ({ note: w.note, createdAt: w.createdAt.toISOString() })),
      }
    },

    async suspendUser(userId: string, actor: Actor): Promise<{ changed: boolean }> {
      const note = requireNote(actor.note)
      await accountOf(userId)
      const changed = await db.transaction((tx) => suspendIn(tx, userId, { ...actor, note }))
      // Also when it was suspended already: ending the logins again is harmless and makes sure.
      await endLogins(userId)
      return { changed }
    },

    async restoreUser(userId: string, actor: Actor): Promise<{ changed: boolean }> {
      const note = requireNote(actor.note)
      await accountOf(userId)
      const changed = await db.transaction(async (tx) => {
        if (!(await suspensions.restore(tx, userId))) return false
        const shown = await hides.unhideCreatorsCharacters(tx, userId)
        await audit(tx, {
          actorId: actor.actorId,
          action: 'user.restore',
          targetType: 'user',
          targetId: userId,
          note,
          details: { charactersShown: shown.length },
        })
        return true
      })
      if (changed) await catalogue.invalidateListings()
      return { changed }
    },

    /** Deletes the account as account deletion does; the audit record commits with the deletion. */
    async deleteUser(userId: string, actor: Actor): Promise<void> {
      const note = requireNote(actor.note)
      const row = await accountOf(userId)
      const deleted = await account.deleteByOperator(userId, (tx) =>
        audit(tx, {
          actorId: actor.actorId,
          action: 'user.delete',
          targetType: 'user',
          targetId: userId,
          note,
          details: { username: row.username },
        }),
      )
      if (!deleted) throw AppError.notFound('No such user')
    },

    /** The verification mail again; `sent: false` when already verified or the mail limit is reached. */
    async resendVerification(userId: string, actor: Actor): Promise<{ sent: boolean }> {
      const note = requireNote(actor.note)
      const row = await accountOf(userId)
      if (row.emailVerifiedAt) return { sent: false }
      const sent = await auth.resendVerificationFor(userId)
      if (sent) {
        await db.transaction((tx) =>
          audit(tx, {
            actorId: actor.actorId,
            action: 'user.resend-verification',
            targetType: 'user',
            targetId: userId,
            note,
          }),
        )
      }
      return { sent }
    },

    /** A warning the user receives by mail in their language; kept on their record. */
    async warnUser(userId: string, actor: Actor): Promise<void> {
      const note = requireNote(actor.note)
      await accountOf(userId)
      await db.transaction((tx) => warnIn(tx, userId, null, { ...actor, note }))
      auth.kickJobs()
    },

    /** Grants (positive) or deducts (negative) diamonds through the ledger; never below zero. */
    async adjustDiamonds(userId: string, amount: number, actor: Actor): Promise<{ balance: number }> {
      const note = requireNote(actor.note)
      if (!Number.isInteger(amount) || amount === 0 || Math.abs(amount) > MAX_ADJUSTMENT) {
        throw AppError.badRequest('The amount must be a whole number other than zero.', {
          fields: [{ path: 'amount', code: 'invalid' }],
        })
      }
      await accountOf(userId)
      const reference = `admin:${randomUUID()}`
      await db.transaction(async (tx) => {
        await diamonds.adjustByOperator(userId, amount, reference, tx)
        await audit(tx, {
          actorId: actor.actorId,
          action: amount > 0 ? 'diamonds.grant' : 'diamonds.deduct',
          targetType: 'user',
          targetId: userId,
          note,
          details: { amount, reference },
        })
      })
      return { balance: (await people.balanceAndLedger(userId, 0)).balance }
    },
  }
}

export type People = ReturnType<typeof createPeople>
