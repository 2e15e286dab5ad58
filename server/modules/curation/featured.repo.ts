import { asc, eq, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { featuredRoles } from '#db/schema/curation.ts'
import { roles } from '#db/schema/roles.ts'

/**
 * Owns `featured_roles` (ADR 059): the characters an operator features on the home page and their
 * order. Writes take the caller's transaction (the audit record commits with them).
 */
export function createFeaturedRepo(db: Db) {
  const publicIdsQuery = db
    .select({ roleId: featuredRoles.roleId })
    .from(featuredRoles)
    .orderBy(asc(featuredRoles.position), asc(featuredRoles.roleId))
    .prepare('featured_role_ids')

  return {
    /** The ids in their order; the catalogue keeps only the public ones. */
    async roleIds(): Promise<number[]> {
      return (await publicIdsQuery.execute()).map((row) => row.roleId)
    },

    /** The list as the console shows it, with each character's name and state. */
    async list(executor: Db | Tx = db) {
      return executor
        .select({
          roleId: roles.id,
          publicId: roles.publicId,
          name: roles.name,
          visibility: roles.visibility,
          isAdult: roles.isAdult,
          position: featuredRoles.position,
        })
        .from(featuredRoles)
        .innerJoin(roles, eq(roles.id, featuredRoles.roleId))
        .orderBy(asc(featuredRoles.position), asc(featuredRoles.roleId))
    },

    /** Adds at the end; false when it was featured already. */
    async add(tx: Tx, roleId: number, actorId: string): Promise<boolean> {
      const rows = await tx
        .insert(featuredRoles)
        .values({
          roleId,
          featuredBy: actorId,
          position: sql`(select coalesce(max(${featuredRoles.position}), 0) + 1 from ${featuredRoles})`,
        })
        .onConflictDoNothing()
        .returning({ roleId: featuredRoles.roleId })
      return rows.length > 0
    },

    async remove(tx: Tx, roleId: number): Promise<boolean> {
      const rows = await tx
        .delete(featuredRoles)
        .where(eq(featuredRoles.roleId, roleId))
        .returning({ roleId: featuredRoles.roleId })
      return rows.length > 0
    },

    /** Positions 1, 2, ... in the order given (the caller checked it names exactly the featured ones). */
    async reorder(tx: Tx, roleIds: number[]) {
      for (const [index, roleId] of roleIds.entries()) {
        await tx
          .update(featuredRoles)
          .set({ position: index + 1 })
          .where(eq(featuredRoles.roleId, roleId))
      }
    },

    /** A character by its public id, for the console's actions. */
    async findRole(executor: Db | Tx, publicId: string) {
      const [row] = await executor
        .select({ id: roles.id, publicId: roles.publicId, visibility: roles.visibility })
        .from(roles)
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },
  }
}

export type FeaturedRepo = ReturnType<typeof createFeaturedRepo>
