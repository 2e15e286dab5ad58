import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Lorebook } from '#contracts/characters.ts'
import type { StoredLorebook } from '#contracts/lorebooks.ts'
import type { Db } from '#db/client.ts'
import { lorebooks, roleLorebooks } from '#db/schema/lorebooks.ts'

/** A lorebook without its book (lists, attachments). */
export type LorebookRow = { id: string; name: string; entryCount: number; createdAt: Date; updatedAt: Date }

const summaryColumns = {
  id: lorebooks.id,
  name: lorebooks.name,
  entryCount: lorebooks.entryCount,
  createdAt: lorebooks.createdAt,
  updatedAt: lorebooks.updatedAt,
}

/**
 * The books attached to the character `roleId`, in their order, as one JSON text (`[]` without
 * any): the chat's send path reads them in its own one-statement query (ADR 020), and both drivers
 * hand a text over as it is. Parse with `parseAttachedBooks`.
 */
export function attachedBooksJson(roleId: AnyPgColumn): SQL<Lorebook[]> {
  return sql`(
    select coalesce(json_agg(${lorebooks.book} order by ${roleLorebooks.position}), '[]')::text
    from ${roleLorebooks}
    join ${lorebooks} on ${lorebooks.id} = ${roleLorebooks.lorebookId}
    where ${roleLorebooks.roleId} = ${roleId})`.mapWith((value: unknown) =>
    typeof value === 'string' ? (JSON.parse(value) as Lorebook[]) : [],
  )
}

export function createLorebooksRepo(db: Db) {
  return {
    async countOwnedBy(ownerId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(lorebooks).where(eq(lorebooks.ownerId, ownerId))
      return row?.n ?? 0
    },

    async insert(ownerId: string, name: string, book: StoredLorebook): Promise<LorebookRow> {
      const [row] = await db
        .insert(lorebooks)
        .values({ ownerId, name, book, entryCount: book.entries.length })
        .returning(summaryColumns)
      if (!row) throw new Error('lorebook insert returned nothing')
      return row
    },

    /** A page of the owner's books, newest first. */
    async listOwnedBy(ownerId: string, page: number, pageSize: number) {
      const [rows, [total]] = await Promise.all([
        db
          .select(summaryColumns)
          .from(lorebooks)
          .where(eq(lorebooks.ownerId, ownerId))
          .orderBy(desc(lorebooks.createdAt), desc(lorebooks.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: count() }).from(lorebooks).where(eq(lorebooks.ownerId, ownerId)),
      ])
      return { rows, total: total?.n ?? 0 }
    },

    /** The owner's book, or null when there is none of that id or it is someone else's. */
    async findOwned(ownerId: string, id: string) {
      const [row] = await db
        .select({ ...summaryColumns, book: lorebooks.book })
        .from(lorebooks)
        .where(and(eq(lorebooks.id, id), eq(lorebooks.ownerId, ownerId)))
      return row ?? null
    },

    /** Renames the owner's book (its `name` inside the book too: the exports carry it). */
    async rename(ownerId: string, id: string, name: string): Promise<LorebookRow | null> {
      const [row] = await db
        .update(lorebooks)
        .set({
          name,
          book: sql`jsonb_set(${lorebooks.book}, '{name}', to_jsonb(${name}::text))`,
          updatedAt: new Date(),
        })
        .where(and(eq(lorebooks.id, id), eq(lorebooks.ownerId, ownerId)))
        .returning(summaryColumns)
      return row ?? null
    },

    async delete(ownerId: string, id: string): Promise<boolean> {
      const rows = await db
        .delete(lorebooks)
        .where(and(eq(lorebooks.id, id), eq(lorebooks.ownerId, ownerId)))
        .returning({ id: lorebooks.id })
      return rows.length > 0
    },

    /** Which of `ids` the owner has. */
    async ownedAmong(ownerId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set()
      const rows = await db
        .select({ id: lorebooks.id })
        .from(lorebooks)
        .where(and(eq(lorebooks.ownerId, ownerId), inArray(lorebooks.id, ids)))
      return new Set(rows.map((row) => row.id))
    },

    async attachedTo(roleId: number): Promise<LorebookRow[]> {
      return db
        .select(summaryColumns)
        .from(roleLorebooks)
        .innerJoin(lorebooks, eq(lorebooks.id, roleLorebooks.lorebookId))
        .where(eq(roleLorebooks.roleId, roleId))
        .orderBy(asc(roleLorebooks.position))
    },

    /** The character's attached books become `ids`, in that order. */
    async setAttached(roleId: number, ids: string[]): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.delete(roleLorebooks).where(eq(roleLorebooks.roleId, roleId))
        if (ids.length > 0) {
          await tx.insert(roleLorebooks).values(ids.map((lorebookId, position) => ({ roleId, lorebookId, position })))
        }
      })
    },
  }
}

export type LorebooksRepo = ReturnType<typeof createLorebooksRepo>
