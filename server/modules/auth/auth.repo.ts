import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { emailTokens, refreshTokens } from '#db/schema/auth.ts'
import { users } from '#db/schema/users.ts'
import type { JobExecutor } from '#server/modules/jobs/job-queue.ts'

export type EmailTokenPurpose = 'verify-email' | 'reset-password'

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

    async usernameTaken(username: string): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(sql`lower(${users.username}) = ${username.toLowerCase()}`)
        .limit(1)
      return Boolean(row)
    },

    /** Null when the e-mail or the username was taken meanwhile (unique indexes decide). */
    /**
     * A new account, or null when the name or address was taken meanwhile. `andThen` runs in the
     * same transaction (the verification mail's job: both exist, or neither).
     */
    async createUser(
      values: { username: string; email: string; passwordHash: string; locale: string },
      andThen?: (tx: JobExecutor, user: typeof users.$inferSelect) => Promise<unknown>,
    ) {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(users).values(values).onConflictDoNothing().returning()
        if (row && andThen) await andThen(tx, row)
        return row ?? null
      })
    },

    async findUserByGoogleSubject(subject: string) {
      const [row] = await db.select().from(users).where(eq(users.googleSubject, subject)).limit(1)
      return row ?? null
    },

    async linkGoogle(userId: string, subject: string) {
      await db.update(users).set({ googleSubject: subject, updatedAt: new Date() }).where(eq(users.id, userId))
    },

    /** A verified account without a password; null when the name (or address) was taken meanwhile. */
    async createGoogleUser(values: { username: string; email: string; googleSubject: string; locale: string }) {
      const [row] = await db
        .insert(users)
        .values({ ...values, emailVerifiedAt: new Date() })
        .onConflictDoNothing()
        .returning()
      return row ?? null
    },

    async markEmailVerified(userId: string) {
      await db
        .update(users)
        .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())`, updatedAt: new Date() })
        .where(eq(users.id, userId))
    },

    /**
     * Uses a reset link and sets the new password in one transaction: the link is spent, the
     * password set, the address counted as verified (following the link proves it), every login
     * ended, and `andThen` run (the "password changed" mail's job), all or nothing. Returns the
     * user's id, or null for an unknown, used, expired or other-purpose link.
     */
    async resetPassword(
      tokenHash: string,
      passwordHash: string,
      andThen: (tx: JobExecutor, userId: string) => Promise<unknown>,
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
        await tx
          .update(users)
          .set({ passwordHash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())`, updatedAt: now })
          .where(eq(users.id, token.userId))
        await tx
          .update(refreshTokens)
          .set({ revokedAt: now })
          .where(and(eq(refreshTokens.userId, token.userId), isNull(refreshTokens.revokedAt)))
        await andThen(tx, token.userId)
        return token.userId
      })
    },

    async insertEmailToken(values: { userId: string; purpose: EmailTokenPurpose; tokenHash: string; expiresAt: Date }) {
      await db.insert(emailTokens).values(values)
    },

    /**
     * Marks a token used and returns its user, in one statement, so two clicks on the same link
     * cannot both succeed. Null for unknown, used, expired or other-purpose tokens.
     */
    async consumeEmailToken(tokenHash: string, purpose: EmailTokenPurpose) {
      const [row] = await db
        .update(emailTokens)
        .set({ usedAt: new Date() })
        .where(
          and(
            eq(emailTokens.tokenHash, tokenHash),
            eq(emailTokens.purpose, purpose),
            isNull(emailTokens.usedAt),
            sql`${emailTokens.expiresAt} > now()`,
          ),
        )
        .returning({ userId: emailTokens.userId })
      return row ?? null
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
      const rows = await db
        .update(refreshTokens)
        .set({ revokedAt: new Date() })
        .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)))
        .returning({ familyId: refreshTokens.familyId })
      return new Set(rows.map((row) => row.familyId)).size
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
