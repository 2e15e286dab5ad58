import { and, eq, inArray, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { type RoleHideCause, roleHides } from '#db/schema/moderation.ts'
import { roles } from '#db/schema/roles.ts'

/**
 * Owns `role_hides` (ADR 055) and, for it, the visibility of a hidden character: hidden means
 * private, which every public surface (listings, search, sitemaps, "more characters", the page, new
 * chats) already leaves out, and the `catalogue_version` trigger drops cached listings in the same
 * transaction. The `roles_keep_hidden` trigger keeps it private while any row is here.
 */
export function createRoleHidesRepo(db: Db) {
  /** After a hide row went: public again when none is left and the character was public. */
  async function republishIfClear(tx: Tx, roleIds: number[]) {
    for (const roleId of roleIds) {
      await tx.execute(sql`update ${roles} set visibility = 'public', updated_at = now()
        where ${roles.id} = ${roleId}
          and not exists (select 1 from ${roleHides} where ${roleHides.roleId} = ${roleId})`)
    }
  }

  return {
    async findRole(publicId: string) {
      const [row] = await db
        .select({ id: roles.id, publicId: roles.publicId, creatorId: roles.creatorId, isAdult: roles.isAdult })
        .from(roles)
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    /** Which of these characters are hidden, for whatever cause. */
    async hiddenAmong(roleIds: number[]): Promise<Set<number>> {
      if (roleIds.length === 0) return new Set()
      const rows = await db
        .selectDistinct({ roleId: roleHides.roleId })
        .from(roleHides)
        .where(inArray(roleHides.roleId, roleIds))
      return new Set(rows.map((row) => row.roleId))
    },

    async causesOf(roleId: number): Promise<RoleHideCause[]> {
      const rows = await db.select({ cause: roleHides.cause }).from(roleHides).where(eq(roleHides.roleId, roleId))
      return rows.map((row) => row.cause)
    },

    /** Hides the character for `cause`; false when it already was hidden for that cause. */
    async hide(tx: Tx, roleId: number, values: { cause: RoleHideCause; note: string; actorId: string }) {
      const [role] = await tx
        .select({ visibility: roles.visibility })
        .from(roles)
        .where(eq(roles.id, roleId))
        .for('update')
      if (!role) return false
      const [other] = await tx
        .select({ wasPublic: roleHides.wasPublic })
        .from(roleHides)
        .where(eq(roleHides.roleId, roleId))
        .limit(1)
      const inserted = await tx
        .insert(roleHides)
        .values({ roleId, ...values, wasPublic: other ? other.wasPublic : role.visibility === 'public' })
        .onConflictDoNothing()
        .returning({ roleId: roleHides.roleId })
      if (inserted.length === 0) return false
      if (role.visibility === 'public') {
        await tx.update(roles).set({ visibility: 'private', updatedAt: new Date() }).where(eq(roles.id, roleId))
      }
      return true
    },

    /** Takes back the hide for `cause`; false when there was none. */
    async unhide(tx: Tx, roleId: number, cause: RoleHideCause): Promise<boolean> {
      const deleted = await tx
        .delete(roleHides)
        .where(and(eq(roleHides.roleId, roleId), eq(roleHides.cause, cause)))
        .returning({ wasPublic: roleHides.wasPublic })
      if (deleted.length === 0) return false
      if (deleted[0]?.wasPublic) await republishIfClear(tx, [roleId])
      return true
    },

    /**
     * A suspended creator's characters leave every public surface: those public now, and those a
     * moderator hid that were public (so restoring one of them keeps it hidden while the creator is
     * suspended). Returns their ids.
     */
    async hideCreatorsCharacters(tx: Tx, creatorId: string, note: string, actorId: string): Promise<number[]> {
      const rows = await tx
        .select({ id: roles.id })
        .from(roles)
        .where(
          and(
            eq(roles.creatorId, creatorId),
            sql`(${roles.visibility} = 'public' or exists (select 1 from ${roleHides}
              where ${roleHides.roleId} = ${roles.id} and ${roleHides.wasPublic}))`,
          ),
        )
      const hidden: number[] = []
      for (const { id } of rows) {
        if (await this.hide(tx, id, { cause: 'suspension', note, actorId })) hidden.push(id)
      }
      return hidden
    },

    /** Restoring a creator: their characters hidden for the suspension come back (unless also hidden by a moderator). */
    async unhideCreatorsCharacters(tx: Tx, creatorId: string): Promise<number[]> {
      const deleted = await tx
        .delete(roleHides)
        .where(
          and(
            eq(roleHides.cause, 'suspension'),
            sql`${roleHides.roleId} in (select ${roles.id} from ${roles} where ${roles.creatorId} = ${creatorId})`,
          ),
        )
        .returning({ roleId: roleHides.roleId, wasPublic: roleHides.wasPublic })
      await republishIfClear(
        tx,
        deleted.filter((row) => row.wasPublic).map((row) => row.roleId),
      )
      return deleted.map((row) => row.roleId)
    },

    /** Marks or unmarks the character adult; false when it already was so. */
    async setAdult(tx: Tx, roleId: number, adult: boolean): Promise<boolean> {
      const updated = await tx
        .update(roles)
        .set({ isAdult: adult, updatedAt: new Date() })
        .where(and(eq(roles.id, roleId), eq(roles.isAdult, !adult)))
        .returning({ id: roles.id })
      return updated.length > 0
    },
  }
}

export type RoleHidesRepo = ReturnType<typeof createRoleHidesRepo>
