import type { Audit } from '#contracts/admin-audit.ts'
import { FEATURED_MAX, type FeaturedItem } from '#contracts/admin-featured.ts'
import type { Db } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { FeaturedRepo } from './featured.repo.ts'
import type { Actor } from './tags-console.ts'

/** What the audit log names the list by when its order changes (no one character's change). */
const LIST_TARGET = 'featured'

/**
 * Featured characters (ADR 059): feature a public character, take one off, set the order. Each
 * action writes its audit record in its transaction; the featured_roles trigger bumps the catalogue
 * version, so the home page's cached data follows.
 */
export function createFeaturedConsole(deps: { db: Db; audit: Audit; repo: FeaturedRepo }) {
  const { db, audit, repo } = deps

  async function list(): Promise<FeaturedItem[]> {
    return (await repo.list()).map((row) => ({
      roleId: row.publicId,
      name: row.name,
      position: row.position,
      visibility: row.visibility,
      isAdult: row.isAdult,
    }))
  }

  async function roleOf(publicId: string) {
    const role = await repo.findRole(db, publicId)
    if (!role) throw AppError.notFound('No such character')
    return role
  }

  return {
    list,

    /** Adds a public character at the end of the list (409 for a private or hidden one, or a full list). */
    async feature(publicId: string, actor: Actor) {
      const role = await roleOf(publicId)
      if (role.visibility !== 'public') {
        throw AppError.conflict('Only a public character can be featured.', { reason: 'not_public' })
      }
      const current = await repo.list()
      if (current.some((row) => row.roleId === role.id)) return list()
      if (current.length >= FEATURED_MAX) {
        throw AppError.conflict(`At most ${FEATURED_MAX} characters can be featured.`, { reason: 'list_full' })
      }
      await db.transaction(async (tx) => {
        if (!(await repo.add(tx, role.id, actor.actorId))) return
        await audit(tx, {
          actorId: actor.actorId,
          action: 'character.feature',
          targetType: 'character',
          targetId: role.publicId,
          note: actor.note,
        })
      })
      return list()
    },

    async unfeature(publicId: string, actor: Actor) {
      const role = await roleOf(publicId)
      await db.transaction(async (tx) => {
        if (!(await repo.remove(tx, role.id))) return
        await audit(tx, {
          actorId: actor.actorId,
          action: 'character.unfeature',
          targetType: 'character',
          targetId: role.publicId,
          note: actor.note,
        })
      })
      return list()
    },

    /** The new order: exactly the characters featured now, each once (409 otherwise). */
    async reorder(publicIds: string[], actor: Actor) {
      await db.transaction(async (tx) => {
        const current = await repo.list(tx)
        const byPublicId = new Map(current.map((row) => [row.publicId, row.roleId]))
        const same =
          publicIds.length === current.length &&
          new Set(publicIds).size === publicIds.length &&
          publicIds.every((id) => byPublicId.has(id))
        if (!same)
          throw AppError.conflict('The order must name every featured character once.', { reason: 'stale_list' })
        const before = current.map((row) => row.publicId)
        if (before.every((id, i) => id === publicIds[i])) return
        await repo.reorder(
          tx,
          publicIds.map((id) => byPublicId.get(id) ?? 0),
        )
        await audit(tx, {
          actorId: actor.actorId,
          action: 'character.feature-order',
          targetType: 'character',
          targetId: LIST_TARGET,
          note: actor.note,
          details: { before, after: publicIds },
        })
      })
      return list()
    },
  }
}

export type FeaturedConsole = ReturnType<typeof createFeaturedConsole>
