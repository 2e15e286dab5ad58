import { and, desc, eq, gt, ilike, inArray, or, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { diamondBalances, diamondLedger } from '#db/schema/diamonds.ts'
import { subscriptions } from '#db/schema/payments.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** LIKE's own characters, escaped so a typed `%` or `_` matches itself. */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * What an operator sees of people (ADR 055): search and a person's account, plan, balance and
 * recent ledger, characters. Reads only; never a chat.
 */
export function createPeopleRepo(db: Db) {
  const account = {
    id: users.id,
    username: users.username,
    email: users.email,
    emailVerifiedAt: users.emailVerifiedAt,
    locale: users.locale,
    hasPassword: sql<boolean>`${users.passwordHash} is not null`,
    googleLinked: sql<boolean>`${users.googleSubject} is not null`,
    createdAt: users.createdAt,
  }
  return {
    /**
     * By id (exact), e-mail (exact or prefix, any case) or username (prefix, any case); an exact
     * e-mail first, then by e-mail and id (a stable order for pages).
     */
    async search(query: string, limit: number, offset = 0) {
      const text = query.trim()
      if (UUID.test(text)) {
        return db.select(account).from(users).where(eq(users.id, text)).limit(limit).offset(offset)
      }
      const prefix = likePrefix(text.toLowerCase())
      return db
        .select(account)
        .from(users)
        .where(or(sql`lower(${users.email}) like ${prefix}`, ilike(users.username, prefix)))
        .orderBy(sql`lower(${users.email}) = ${text.toLowerCase()} desc`, users.email, users.id)
        .limit(limit)
        .offset(offset)
    },

    /** The usernames of these accounts (the creators in the reports queue); gone ones are absent. */
    async usernames(userIds: string[]) {
      if (userIds.length === 0) return new Map<string, string>()
      const rows = await db
        .select({ id: users.id, username: users.username })
        .from(users)
        .where(inArray(users.id, userIds))
      return new Map(rows.map((row) => [row.id, row.username]))
    },

    async account(userId: string) {
      const [row] = await db.select(account).from(users).where(eq(users.id, userId)).limit(1)
      return row ?? null
    },

    async balanceAndLedger(userId: string, limit: number) {
      const [balance] = await db
        .select({ balance: diamondBalances.balance })
        .from(diamondBalances)
        .where(eq(diamondBalances.userId, userId))
      const ledger = await db
        .select({
          amount: diamondLedger.amount,
          reason: diamondLedger.reason,
          reference: diamondLedger.reference,
          createdAt: diamondLedger.createdAt,
        })
        .from(diamondLedger)
        .where(eq(diamondLedger.userId, userId))
        .orderBy(desc(diamondLedger.id))
        .limit(limit)
      return { balance: balance?.balance ?? 0, ledger }
    },

    /** The plan in force: a subscription whose paid period has not ended. */
    async currentSubscription(userId: string) {
      const [row] = await db
        .select({
          planId: subscriptions.planId,
          status: subscriptions.status,
          currentPeriodEnd: subscriptions.currentPeriodEnd,
        })
        .from(subscriptions)
        .where(and(eq(subscriptions.userId, userId), gt(subscriptions.currentPeriodEnd, new Date())))
        .orderBy(desc(subscriptions.currentPeriodEnd))
        .limit(1)
      return row ?? null
    },

    async characters(userId: string) {
      return db
        .select({
          id: roles.id,
          publicId: roles.publicId,
          name: roles.name,
          visibility: roles.visibility,
          isAdult: roles.isAdult,
          chatCount: roles.chatCount,
          createdAt: roles.createdAt,
        })
        .from(roles)
        .where(eq(roles.creatorId, userId))
        .orderBy(desc(roles.createdAt))
    },
  }
}

export type PeopleRepo = ReturnType<typeof createPeopleRepo>
