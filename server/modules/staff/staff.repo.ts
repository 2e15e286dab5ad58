import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { staffMembers, staffRecoveryCodes, staffSecondFactors } from '#db/schema/staff.ts'
import { users } from '#db/schema/users.ts'

export type StaffRole = 'admin' | 'moderator'
export type StaffListEntry = {
  userId: string
  email: string
  username: string
  role: StaffRole
  grantedBy: string
  grantedAt: Date
  secondFactor: boolean
}

/** Staff members, their second factors and recovery codes (ADR 054). */
export function createStaffRepo(db: Db) {
  return {
    /** Outside a transaction, for `acceptStep`. */
    db,
    transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(work)
    },

    /** The role, read on every console call (never cached): a revoke counts from the next request. */
    async roleOf(userId: string): Promise<StaffRole | null> {
      const [row] = await db
        .select({ role: staffMembers.role })
        .from(staffMembers)
        .where(eq(staffMembers.userId, userId))
        .limit(1)
      return row?.role ?? null
    },

    async grant(tx: Tx, userId: string, role: StaffRole, grantedBy: string): Promise<StaffRole | null> {
      const [before] = await tx
        .select({ role: staffMembers.role })
        .from(staffMembers)
        .where(eq(staffMembers.userId, userId))
        .for('update')
      await tx
        .insert(staffMembers)
        .values({ userId, role, grantedBy })
        .onConflictDoUpdate({ target: staffMembers.userId, set: { role, grantedBy, grantedAt: new Date() } })
      return before?.role ?? null
    },

    /** Removes the role and the second factor with it; the role it had, or null. */
    async revoke(tx: Tx, userId: string): Promise<StaffRole | null> {
      const [row] = await tx
        .delete(staffMembers)
        .where(eq(staffMembers.userId, userId))
        .returning({ role: staffMembers.role })
      await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId))
      await tx.delete(staffSecondFactors).where(eq(staffSecondFactors.userId, userId))
      return row?.role ?? null
    },

    /** Every staff member with their account's address and name (a join: the list is one query). */
    async list(): Promise<StaffListEntry[]> {
      const rows = await db
        .select({
          userId: staffMembers.userId,
          email: users.email,
          username: users.username,
          role: staffMembers.role,
          grantedBy: staffMembers.grantedBy,
          grantedAt: staffMembers.grantedAt,
          enabledAt: staffSecondFactors.enabledAt,
        })
        .from(staffMembers)
        .innerJoin(users, eq(users.id, staffMembers.userId))
        .leftJoin(staffSecondFactors, eq(staffSecondFactors.userId, staffMembers.userId))
        .orderBy(asc(users.email))
      return rows.map(({ enabledAt, ...row }) => ({ ...row, secondFactor: enabledAt !== null }))
    },

    async secondFactorOf(userId: string) {
      const [row] = await db.select().from(staffSecondFactors).where(eq(staffSecondFactors.userId, userId)).limit(1)
      return row ?? null
    },

    /** A new secret waiting for its first code; replaces one not yet enabled, never an enabled one. */
    async saveSecret(userId: string, secretEncrypted: string): Promise<boolean> {
      const rows = await db
        .insert(staffSecondFactors)
        .values({ userId, secretEncrypted })
        .onConflictDoUpdate({
          target: staffSecondFactors.userId,
          set: { secretEncrypted, lastStep: null, createdAt: new Date() },
          setWhere: isNull(staffSecondFactors.enabledAt),
        })
        .returning({ userId: staffSecondFactors.userId })
      return rows.length > 0
    },

    /**
     * Records `step` as the last accepted code's, if no code of it or a later step was accepted:
     * one statement, so two requests with the same code cannot both pass.
     */
    async acceptStep(tx: Tx | Db, userId: string, step: number, enabling: boolean): Promise<boolean> {
      const rows = await tx
        .update(staffSecondFactors)
        .set(enabling ? { lastStep: step, enabledAt: new Date() } : { lastStep: step })
        .where(
          and(
            eq(staffSecondFactors.userId, userId),
            enabling ? isNull(staffSecondFactors.enabledAt) : sql`${staffSecondFactors.enabledAt} is not null`,
            or(isNull(staffSecondFactors.lastStep), lt(staffSecondFactors.lastStep, step)),
          ),
        )
        .returning({ userId: staffSecondFactors.userId })
      return rows.length > 0
    },

    async replaceRecoveryCodes(tx: Tx, userId: string, codeHashes: string[]): Promise<void> {
      await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId))
      await tx.insert(staffRecoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash })))
    },

    /** Spends a recovery code: true once per code, in one statement. */
    async spendRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
      const rows = await db
        .update(staffRecoveryCodes)
        .set({ usedAt: new Date() })
        .where(
          and(
            eq(staffRecoveryCodes.userId, userId),
            eq(staffRecoveryCodes.codeHash, codeHash),
            isNull(staffRecoveryCodes.usedAt),
          ),
        )
        .returning({ id: staffRecoveryCodes.id })
      return rows.length > 0
    },

    async recoveryCodesLeft(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(staffRecoveryCodes)
        .where(and(eq(staffRecoveryCodes.userId, userId), isNull(staffRecoveryCodes.usedAt)))
      return row?.n ?? 0
    },

    /** Removes the second factor (the staff member enrolls again); whether there was one. */
    async resetSecondFactor(tx: Tx, userId: string): Promise<boolean> {
      await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, userId))
      const rows = await tx
        .delete(staffSecondFactors)
        .where(eq(staffSecondFactors.userId, userId))
        .returning({ userId: staffSecondFactors.userId })
      return rows.length > 0
    },
  }
}

export type StaffRepo = ReturnType<typeof createStaffRepo>
