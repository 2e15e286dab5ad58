import { and, asc, count, eq, ne, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { PersonaFields } from '#contracts/personas.ts'
import type { Db, Tx } from '#db/client.ts'
import { chatSessions } from '#db/schema/chat.ts'
import { chatPersonas, personas } from '#db/schema/personas.ts'
import { liveSession } from '../chat-rows.repo.ts'

export type PersonaRow = typeof personas.$inferSelect

/**
 * The name of the chat's persona, or null when it has none: the chat's own reads (ADR 020: one
 * statement before the model call) take it in their query, with the account name as fallback.
 */
export function chatPersonaName(sessionId: AnyPgColumn): SQL<string | null> {
  return sql<string | null>`(
    select ${personas.name} from ${chatPersonas}
    join ${personas} on ${personas.id} = ${chatPersonas.personaId}
    where ${chatPersonas.sessionId} = ${sessionId})`
}

/** The description of the chat's persona ('' without one), for the prompt's `## {{user}}` section. */
export function chatPersonaDescription(sessionId: AnyPgColumn): SQL<string> {
  return sql<string>`coalesce((
    select ${personas.description} from ${chatPersonas}
    join ${personas} on ${personas.id} = ${chatPersonas.personaId}
    where ${chatPersonas.sessionId} = ${sessionId}), '')`
}

/**
 * A branch keeps its chat's persona (ADR 050): the chat `toSessionId` gets the persona of
 * `fromSessionId`, in the branch's transaction; nothing when the original has none.
 */
export async function copyChatPersona(tx: Tx, fromSessionId: string, toSessionId: string): Promise<void> {
  await tx.execute(sql`
    insert into ${chatPersonas} (session_id, persona_id)
    select ${toSessionId}, ${chatPersonas.personaId} from ${chatPersonas}
    where ${chatPersonas.sessionId} = ${fromSessionId}`)
}

export function createPersonasRepo(db: Db) {
  const mine = (ownerId: string, id: string) => and(eq(personas.ownerId, ownerId), eq(personas.id, id))

  return {
    async list(ownerId: string, offset: number, limit: number): Promise<PersonaRow[]> {
      return db
        .select()
        .from(personas)
        .where(eq(personas.ownerId, ownerId))
        .orderBy(asc(personas.createdAt), asc(personas.id))
        .offset(offset)
        .limit(limit)
    },

    async count(ownerId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(personas).where(eq(personas.ownerId, ownerId))
      return row?.n ?? 0
    },

    async find(ownerId: string, id: string): Promise<PersonaRow | null> {
      const [row] = await db.select().from(personas).where(mine(ownerId, id))
      return row ?? null
    },

    /**
     * A new persona, unless the user already keeps `max`: counted under a lock on the user's
     * personas, so two creates at once never make one too many. Null when the limit is reached.
     */
    async create(
      ownerId: string,
      fields: PersonaFields,
      max: number,
      makeDefault: boolean,
    ): Promise<PersonaRow | null> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`personas:${ownerId}`}, 0))`)
        const [held] = await tx.select({ n: count() }).from(personas).where(eq(personas.ownerId, ownerId))
        if ((held?.n ?? 0) >= max) return null
        if (makeDefault) await tx.update(personas).set({ isDefault: false }).where(eq(personas.ownerId, ownerId))
        const [row] = await tx
          .insert(personas)
          .values({ ownerId, ...fields, isDefault: makeDefault })
          .returning()
        return row ?? null
      })
    },

    async update(ownerId: string, id: string, fields: PersonaFields): Promise<PersonaRow | null> {
      const [row] = await db
        .update(personas)
        .set({ ...fields, updatedAt: new Date() })
        .where(mine(ownerId, id))
        .returning()
      return row ?? null
    },

    /** Sets the avatar; returns the row and the image it replaced (to remove), or null when not theirs. */
    async setAvatar(ownerId: string, id: string, imageId: string | null) {
      return db.transaction(async (tx) => {
        const [before] = await tx
          .select({ avatarImageId: personas.avatarImageId })
          .from(personas)
          .where(mine(ownerId, id))
          .for('update')
        if (!before) return null
        const [row] = await tx
          .update(personas)
          .set({ avatarImageId: imageId, updatedAt: new Date() })
          .where(mine(ownerId, id))
          .returning()
        return row ? { row, replaced: before.avatarImageId } : null
      })
    },

    /** Deletes it (its chats fall back to the account name); returns its avatar to remove, or false. */
    async remove(ownerId: string, id: string): Promise<{ avatarImageId: string | null } | false> {
      const [row] = await db
        .delete(personas)
        .where(mine(ownerId, id))
        .returning({ avatarImageId: personas.avatarImageId })
      return row ?? false
    },

    /** Makes `id` the default (null: none); false when `id` is not theirs. */
    async setDefault(ownerId: string, id: string | null): Promise<boolean> {
      return db.transaction(async (tx) => {
        if (id !== null) {
          const [own] = await tx.select({ id: personas.id }).from(personas).where(mine(ownerId, id)).for('update')
          if (!own) return false
        }
        // Cleared first: the partial unique index allows one default per user at any moment.
        await tx
          .update(personas)
          .set({ isDefault: false })
          .where(
            id === null
              ? eq(personas.ownerId, ownerId)
              : and(eq(personas.ownerId, ownerId), eq(personas.isDefault, true), ne(personas.id, id)),
          )
        if (id !== null) await tx.update(personas).set({ isDefault: true }).where(mine(ownerId, id))
        return true
      })
    },

    async defaultOf(ownerId: string): Promise<{ id: string; name: string } | null> {
      const [row] = await db
        .select({ id: personas.id, name: personas.name })
        .from(personas)
        .where(and(eq(personas.ownerId, ownerId), eq(personas.isDefault, true)))
      return row ?? null
    },

    /** The persona of the user's chat: its id or null; undefined when the chat is not theirs. */
    async chatPersona(userId: string, sessionId: string): Promise<string | null | undefined> {
      const [row] = await db
        .select({ personaId: chatPersonas.personaId })
        .from(chatSessions)
        .leftJoin(chatPersonas, eq(chatPersonas.sessionId, chatSessions.id))
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession))
      return row ? row.personaId : undefined
    },

    /**
     * Sets the persona of the user's chat (null: the account name). False when the chat or the
     * persona is not theirs: both are checked in the statement that writes.
     */
    async setChatPersona(userId: string, sessionId: string, personaId: string | null): Promise<boolean> {
      if (personaId === null) {
        const [own] = await db
          .select({ id: chatSessions.id })
          .from(chatSessions)
          .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession))
        if (!own) return false
        await db.delete(chatPersonas).where(eq(chatPersonas.sessionId, sessionId))
        return true
      }
      const written = await db.execute(sql`
        insert into ${chatPersonas} (session_id, persona_id)
        select ${chatSessions.id}, ${personas.id} from ${chatSessions}, ${personas}
        where ${chatSessions.id} = ${sessionId} and ${chatSessions.userId} = ${userId}
          and ${personas.id} = ${personaId} and ${personas.ownerId} = ${userId}
        on conflict (session_id) do update set persona_id = excluded.persona_id
        returning session_id`)
      return (written as unknown as { rows: unknown[] }).rows.length > 0
    },
  }
}

export type PersonasRepo = ReturnType<typeof createPersonasRepo>
