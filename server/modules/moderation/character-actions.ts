import type { Tx } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ModerationDeps } from './moderation.service.ts'

export type Actor = { actorId: string; note: string }

/** The longest note an action takes. */
export const NOTE_MAX = 2000

/** A note is required for every action: the audit log says why. */
export function requireNote(note: string): string {
  const trimmed = note.trim()
  if (!trimmed) throw AppError.badRequest('A note is required.', { fields: [{ path: 'note', code: 'required' }] })
  if (trimmed.length > NOTE_MAX) {
    throw AppError.badRequest('The note is too long.', { fields: [{ path: 'note', code: 'too_long', max: NOTE_MAX }] })
  }
  return trimmed
}

/**
 * Characters (ADR 055): hide with a note, restore, mark adult and unmark. Hidden is private for
 * everyone but its creator; the listing caches are dropped.
 */
export function createCharacterActions(deps: Pick<ModerationDeps, 'db' | 'audit' | 'hides' | 'catalogue'>) {
  const { db, audit, hides, catalogue } = deps

  async function roleOf(publicId: string) {
    const role = await hides.findRole(publicId)
    if (!role) throw AppError.notFound('No such character')
    return role
  }

  /** Hides in the caller's transaction, with its audit record; false when it already was hidden. */
  async function hideIn(
    tx: Tx,
    role: { id: number; publicId: string },
    actor: Actor,
    details?: Record<string, unknown>,
  ) {
    const hidden = await hides.hide(tx, role.id, { cause: 'moderation', note: actor.note, actorId: actor.actorId })
    if (hidden) {
      await audit(tx, {
        actorId: actor.actorId,
        action: 'character.hide',
        targetType: 'character',
        targetId: role.publicId,
        note: actor.note,
        ...(details ? { details } : {}),
      })
    }
    return hidden
  }

  /** Marks adult (or not) in the caller's transaction, with its audit record; false when unchanged. */
  async function setAdultIn(
    tx: Tx,
    role: { id: number; publicId: string },
    adult: boolean,
    actor: Actor,
    details?: Record<string, unknown>,
  ) {
    const done = await hides.setAdult(tx, role.id, adult)
    if (done) {
      await audit(tx, {
        actorId: actor.actorId,
        action: adult ? 'character.mark-adult' : 'character.unmark-adult',
        targetType: 'character',
        targetId: role.publicId,
        note: actor.note,
        ...(details ? { details } : {}),
      })
    }
    return done
  }

  return {
    roleOf,
    hideIn,
    setAdultIn,

    async hideCharacter(publicId: string, actor: Actor): Promise<{ changed: boolean }> {
      const note = requireNote(actor.note)
      const role = await roleOf(publicId)
      const changed = await db.transaction((tx) => hideIn(tx, role, { ...actor, note }))
      if (changed) await catalogue.invalidateListings()
      return { changed }
    },

    async restoreCharacter(publicId: string, actor: Actor): Promise<{ changed: boolean }> {
      const note = requireNote(actor.note)
      const role = await roleOf(publicId)
      const changed = await db.transaction(async (tx) => {
        const restored = await hides.unhide(tx, role.id, 'moderation')
        if (restored) {
          await audit(tx, {
            actorId: actor.actorId,
            action: 'character.restore',
            targetType: 'character',
            targetId: publicId,
            note,
          })
        }
        return restored
      })
      if (changed) await catalogue.invalidateListings()
      return { changed }
    },

    async setCharacterAdult(publicId: string, adult: boolean, actor: Actor): Promise<{ changed: boolean }> {
      const note = requireNote(actor.note)
      const role = await roleOf(publicId)
      const changed = await db.transaction((tx) => setAdultIn(tx, role, adult, { ...actor, note }))
      if (changed) await catalogue.invalidateListings()
      return { changed }
    },

    /** Whether the character is hidden by an operator, and why (for its creator's view). */
    async hiddenCauses(publicId: string) {
      const role = await hides.findRole(publicId)
      return role ? hides.causesOf(role.id) : []
    },
  }
}

export type CharacterActions = ReturnType<typeof createCharacterActions>
