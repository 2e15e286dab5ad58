import { and, eq, isNotNull, isNull, lt, notInArray, or, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { emailTokens, refreshTokens } from '#db/schema/auth.ts'
import { users } from '#db/schema/users.ts'
import { usernameSkeleton } from '#server/lib/username-skeleton.ts'
import type { JobExecutor } from '#server/modules/jobs/job-queue.ts'

export type EmailTokenPurpose = 'verify-email' | 'reset-password'
/** What a transaction of this repo tells its `andThen`: whose account, and whether its address was proven just now. */
export type AccountChange = { userId: string; firstVerified: boolean }

function isUniqueViolation(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if ((e as { code?: unknown }).code === '23505') return true
  }
  return false
}

/** Counts the address as verified; true only for the call that verified it (the welcome grant's moment). */
async function verifyAddress(tx: Tx, userId: string): Promise<boolean> {
  const rows = await tx
    .update(users)
    .set({ emailVerifiedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
    .returning({ id: users.id })
  return rows.length === 1
}

/** Ends every login of the user: each refresh token not yet revoked is. Returns how many logins ended. */
async function revokeLogins(executor: Pick<Db, 'update'>, userId: string): Promise<number> {
  const rows = await executor
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
    .returning({ familyId: refreshTokens.familyId })
  return new Set(rows.map((row) => row.familyId)).size
}

export function createAuthRepo(db: Db) {
  return {
    async findUserByEmail(email: string) {
      const [row] = await db.select().from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`).limit(1)
      return row ?? null
    },

    async findUserById(id: string) {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1)
      return row ?? null
    },

    /** The language of the account's mails: the one the person now uses (a no-op when unchanged). */
    async setLocale(userId: string, locale: string): Promise<void> {
      await db
        .update(users)
        .set({ locale })
        .where(and(eq(users.id, userId), sql`${users.locale} <> ${locale}`))
    },

    /** Whether an account has this username, in any case, or one that looks like it (ADR 022). */
    async usernameTaken(username: string): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(
          or(
            sql`lower(${users.username}) = ${username.toLowerCase()}`,
            eq(users.usernameSkeleton, usernameSkeleton(username)),
          ),
        )
        .limit(1)
      return Boolean(row)
    },

    /**
     * A new account, or null when the name (or a look-alike) or address was taken meanwhile: the
     * unique indexes decide, so two racing registrations cannot both win. `andThen` runs in the
     * same transaction (the verification mail's job: both exist, or neither).
     */
    async createUser(
      values: { username: string; email: string; passwordHash: string; locale: string },
      andThen?: (tx: JobExecutor, user: typeof users.$inferSelect) => Promise<unknown>,
    ) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({ ...values, usernameSkeleton: usernameSkeleton(values.username) })
          .onConflictDoNothing()
          .returning()
        if (row && andThen) await andThen(tx, row)
        return row ?? null
      })
    },

    async findUserByGoogleSubject(subject: string) {
      const [row] = await db.select().from(users).where(eq(users.googleSubject, subject)).limit(1)
      return row ?? null
    },

    /** Links a Google identity to an account whose address was verified already; false if it no longer is one. */
    async linkGoogle(userId: string, subject: string): Promise<boolean> {
      const rows = await db
        .update(users)
        .set({ googleSubject: subject, updatedAt: new Date() })
        .where(and(eq(users.id, userId), isNotNull(users.emailVerifiedAt)))
        .returning({ id: users.id })
      return rows.length === 1
    },

    /**
     * Gives an account whose address was never verified to the Google identity that proves the
     * address (ADR 022), all or nothing: the password (set by whoever registered, unproven) is
     * dropped, the identity linked, the address verified and mails go out in `locale`; then
     * `andThen` runs (the tokens-ended mark, the welcome diamonds) and every login is ended. False,
     * changing nothing, when the account was verified meanwhile (its owner proved the address).
     */
    async takeOverUnverified(
      userId: string,
      values: { googleSubject: string; locale: string },
      andThen: (tx: Tx, change: AccountChange) => Promise<unknown>,
    ): Promise<boolean> {
      return db.transaction(async (tx) => {
        const now = new Date()
        const [row] = await tx
          .update(users)
          .set({ ...values, passwordHash: null, emailVerifiedAt: now, updatedAt: now })
          .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
          .returning({ id: users.id })
        if (!row) return false
        await andThen(tx, { userId, firstVerified: true })
        await revokeLogins(tx, userId)
        return true
      })
    },

    /**
     * A verified account without a password; null when the name (or address) was taken meanwhile.
     * `andThen` (the welcome diamonds) commits with it.
     */
    async createGoogleUser(
      values: { username: string; email: string; googleSubject: string; locale: string },
      andThen: (tx: Tx, change: AccountChange) => Promise<unknown>,
    ) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({ ...values, usernameSkeleton: usernameSkeleton(values.username), emailVerifiedAt: new Date() })
          .onConflictDoNothing()
          .returning()
        if (row) await andThen(tx, { userId: row.id, firstVerified: true })
        return row ?? null
      })
    },

    /**
     * Uses a verification link and counts the address as verified, in one transaction with
     * `andThen` (the welcome diamonds on the first verification). Null, changing nothing, for an
     * unknown, used, expired or other-purpose link: two clicks on one link cannot both succeed.
     */
    async verifyEmail(
      tokenHash: string,
      andThen: (tx: Tx, change: AccountChange) => Promise<unknown>,
    ): Promise<AccountChange | null> {
      return db.transaction(async (tx) => {
        const [token] = await tx
          .update(emailTokens)
          .set({ usedAt: new Date() })
          .where(
            and(
              eq(emailTokens.tokenHash, tokenHash),
              eq(emailTokens.purpose, 'verify-email'),
              isNull(emailTokens.usedAt),
              sql`${emailTokens.expiresAt} > now()`,
            ),
          )
          .returning({ userId: emailTokens.userId })
        if (!token) return null
        const change = { userId: token.userId, firstVerified: await verifyAddress(tx, token.userId) }
        await andThen(tx, change)
        return change
      })
    },

    /**
     * Uses a reset link and sets the new password in one transaction: the link is spent, the
     * password set, the address counted as verified (following the link proves it), `andThen` run
     * (the tokens-ended mark, before the logins end; the "password changed" mail's job; the
     * welcome diamonds on a first verification), every login ended and every other open reset link
     * of the account spent, all or nothing. Returns the user's id, or null for an unknown, used,
     * expired or other-purpose link.
     */
    async resetPassword(
      tokenHash: string,
      passwordHash: string,
      andThen: (tx: Tx, change: AccountChange) => Promise<unknown>,
    ): Promise<string | null> {
      return db.transaction(async (tx) => {
        const now = new Date()
        const [token] = await tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(
            and(
              eq(emailTokens.tokenHash, tokenHash),
              eq(emailTokens.purpose, 'reset-password'),
              isNull(emailTokens.usedAt),
              sql`${emailTokens.expiresAt} > now()`,
            ),
          )
          .returning({ userId: emailTokens.userId })
        if (!token) return null
        const firstVerified = await verifyAddress(tx, token.userId)
        await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, token.userId))
        await andThen(tx, { userId: token.userId, firstVerified })
        await revokeLogins(tx, token.userId)
        // An older link, still in the mailbox, must not set the password again after this one.
        await tx
          .update(emailTokens)
          .set({ usedAt: now })
          .where(
            and(
              eq(emailTokens.userId, token.userId),
              eq(emailTokens.purpose, 'reset-password'),
              isNull(emailTokens.usedAt),
            ),
          )
        return token.userId
      })
    },

    async insertEmailToken(values: { userId: string; purpose: EmailTokenPurpose; tokenHash: string; expiresAt: Date }) {
      await db.insert(emailTokens).values(values)
    },

    async insertRefreshToken(values: {
      userId: string
      familyId: string
      tokenHash: string
      remember: boolean
      familyStartedAt: Date
      expiresAt: Date
    }) {
      await db.insert(refreshTokens).values(values)
    },

    async findRefreshToken(tokenHash: string) {
      const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).limit(1)
      return row ?? null
    },

    /** Marks a live token used; false when another request used it first. */
    async consumeRefreshToken(id: string): Promise<boolean> {
      const rows = await db
        .update(refreshTokens)
        .set({ usedAt: new Date() })
        .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
        .returning({ id: refreshTokens.id })
      return rows.length === 1
    },

    async revokeFamily(familyId: string) {
      await db
        .update(refreshTokens)
        .set({ revokedAt: new Date() })
        .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
    },

    /**
     * Ends every login of the user ("log out everywhere"): each of its refresh tokens not yet
     * revoked is. Returns how many logins (token families) that ended.
     */
    async revokeAllForUser(userId: string): Promise<number> {
      return revokeLogins(db, userId)
    },

    /**
     * Fills in the skeleton of usernames stored before it existed (ADR 022), a batch at a time.
     * A name that looks like one already holding its skeleton keeps none (both accounts stay; the
     * first holds the look, so no new look-alike can join them). Returns how many were filled in
     * and how many could not be.
     */
    async backfillUsernameSkeletons(batchSize = 500): Promise<{ filled: number; lookAlikes: number }> {
      let filled = 0
      let lookAlikes = 0
      const skipped: string[] = []
      for (;;) {
        const rows = await db
          .select({ id: users.id, username: users.username })
          .from(users)
          .where(and(isNull(users.usernameSkeleton), skipped.length ? notInArray(users.id, skipped) : undefined))
          .orderBy(users.createdAt, users.id)
          .limit(batchSize)
        if (rows.length === 0) return { filled, lookAlikes }
        for (const row of rows) {
          const skeleton = usernameSkeleton(row.username)
          const updated = await db
            .update(users)
            .set({ usernameSkeleton: skeleton })
            .where(
              and(
                eq(users.id, row.id),
                isNull(users.usernameSkeleton),
                sql`not exists (select 1 from ${users} other where other.username_skeleton = ${skeleton})`,
              ),
            )
            .returning({ id: users.id })
            .catch((error: unknown) => {
              // Another instance gave the same look to another row a moment ago.
              if (isUniqueViolation(error)) return []
              throw error
            })
          if (updated.length === 1) filled += 1
          else {
            lookAlikes += 1
            skipped.push(row.id)
          }
        }
      }
    },

    /**
     * Deletes what no longer lets anyone in: sign-in tokens that expired or whose login ended
     * (logout, reuse, reset), and e-mail links used or expired. A used token of a live login stays
     * until it expires, so presenting it again is still caught as reuse.
     */
    async deleteSpentTokens(): Promise<{ refreshTokens: number; emailTokens: number }> {
      const refresh = await db
        .delete(refreshTokens)
        .where(or(lt(refreshTokens.expiresAt, sql`now()`), isNotNull(refreshTokens.revokedAt)))
        .returning({ id: refreshTokens.id })
      const links = await db
        .delete(emailTokens)
        .where(or(lt(emailTokens.expiresAt, sql`now()`), isNotNull(emailTokens.usedAt)))
        .returning({ id: emailTokens.id })
      return { refreshTokens: refresh.length, emailTokens: links.length }
    },
  }
}

export type AuthRepo = ReturnType<typeof createAuthRepo>
