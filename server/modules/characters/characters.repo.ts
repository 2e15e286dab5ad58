import { createHash } from 'node:crypto'
import { and, asc, count, desc, eq, inArray, notExists } from 'drizzle-orm'
import type { CardExtras, Lorebook, ReportReason, Visibility } from '#contracts/characters.ts'
import type { Db, Tx } from '#db/client.ts'
import { roleReports } from '#db/schema/reports.ts'
import { roleAssets } from '#db/schema/role-assets.ts'
import { roles, roleTags, tags } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import type { CardFile } from '#server/modules/cards/card-types.ts'
import { afterSourceWrite } from '#server/modules/role-texts/role-texts.repo.ts'
import { roleSearchText } from '#server/modules/role-texts/search-text.ts'
import { findTag, slugForTag } from './tag-slug.ts'

type TagRow = { id: number; slug: string; names: Record<string, string>; state: TagState }
type TagState = 'visible' | 'hidden' | 'pending'
/** What a save needs to know besides the form: who writes, in which locale, and the state of tags it makes. */
type Writer = { locale: string; newTagState?: 'visible' | 'pending' | undefined }
const tagColumns = { id: tags.id, slug: tags.slug, names: tags.names, state: tags.state }

/** Every column a character's owner writes through the form. */
export type RoleWrite = {
  name: string
  introduction: string
  scenario: string
  personality: string
  description: string
  firstMessage: string
  alternateGreetings: string[]
  exampleDialogue: string
  visibility: Visibility
  isAdult: boolean
  /** The locale the texts are written in (ADR 039). */
  sourceLanguage: string
  characterBook: Lorebook | null
  cardExtras: Partial<CardExtras>
  avatarImageId: string | null
  avatarBlurredImageId: string | null
  bannerImageId: string | null
  /** Existing slugs or names, or new names; resolved (and created) in the same transaction. */
  tags: string[]
  /** The files its card carried (ADR 047), replacing the stored ones; absent keeps them. */
  files?: CardFile[]
}

const ownershipColumns = {
  id: roles.id,
  publicId: roles.publicId,
  creatorId: roles.creatorId,
  visibility: roles.visibility,
  isAdult: roles.isAdult,
  sourceLanguage: roles.sourceLanguage,
  avatarImageId: roles.avatarImageId,
  avatarBlurredImageId: roles.avatarBlurredImageId,
  bannerImageId: roles.bannerImageId,
}
export type RoleOwnership = {
  id: number
  publicId: string
  creatorId: string | null
  visibility: Visibility
  isAdult: boolean
  sourceLanguage: string
  avatarImageId: string | null
  avatarBlurredImageId: string | null
  bannerImageId: string | null
}

const fullColumns = {
  ...ownershipColumns,
  name: roles.name,
  introduction: roles.introduction,
  scenario: roles.scenario,
  personality: roles.personality,
  description: roles.description,
  firstMessage: roles.firstMessage,
  alternateGreetings: roles.alternateGreetings,
  exampleDialogue: roles.exampleDialogue,
  characterBook: roles.characterBook,
  cardExtras: roles.cardExtras,
  chatCount: roles.chatCount,
  createdAt: roles.createdAt,
  updatedAt: roles.updatedAt,
  // The creator's public name, joined in (the users table is owned by the users, auth and account
  // repos): one query per character read instead of two. Read only; this repo never writes users.
  creatorUsername: users.username,
}

export function createCharactersRepo(db: Db) {
  /**
   * The tags of a save, creating the new ones (named in the writer's locale, made by the writer;
   * pending approval when the operator's policy says so, ADR 059).
   */
  async function resolveTags(tx: Tx, typed: string[], writer: Writer, writerId: string): Promise<TagRow[]> {
    if (typed.length === 0) return []
    const { locale } = writer
    const known: TagRow[] = await tx.select(tagColumns).from(tags)
    const chosen = new Map<number, TagRow>()
    for (const name of typed) {
      let tag = findTag(known, name)
      if (!tag) {
        const slug = slugForTag(name)
        const [inserted] = await tx
          .insert(tags)
          .values({
            slug,
            names: { [locale]: name },
            userMade: true,
            createdBy: writerId,
            state: writer.newTagState ?? 'visible',
          })
          .onConflictDoNothing({ target: tags.slug })
          .returning(tagColumns)
        tag = inserted ?? (await tx.select(tagColumns).from(tags).where(eq(tags.slug, slug)))[0]
        if (!tag) continue
        known.push(tag)
      }
      chosen.set(tag.id, tag)
    }
    return [...chosen.values()]
  }

  /**
   * Name, every public tag's name and introduction: what the catalogue's search reads (as its repo
   * writes it). A hidden or pending tag is not found by search (ADR 059).
   */
  function searchText(write: RoleWrite, roleTagRows: TagRow[]): string {
    return roleSearchText(
      write,
      roleTagRows.filter((t) => t.state === 'visible').map((t) => t.names),
    )
  }

  /** Tags users made that no character carries any more go (of these, the ones a save let go of). */
  async function removeUnusedUserTags(tx: Tx, tagIds: number[]) {
    if (tagIds.length === 0) return
    const carried = tx.select({ tagId: roleTags.tagId }).from(roleTags).where(eq(roleTags.tagId, tags.id))
    await tx.delete(tags).where(and(inArray(tags.id, tagIds), eq(tags.userMade, true), notExists(carried)))
  }

  async function tagIdsOf(tx: Tx, roleId: number): Promise<number[]> {
    const rows = await tx.select({ tagId: roleTags.tagId }).from(roleTags).where(eq(roleTags.roleId, roleId))
    return rows.map((row) => row.tagId)
  }

  function columnsOf(write: RoleWrite) {
    const { tags: _tags, files: _files, ...columns } = write
    return columns
  }

  async function writeFiles(tx: Tx, roleId: number, files: CardFile[] | undefined) {
    if (files === undefined) return
    await tx.delete(roleAssets).where(eq(roleAssets.roleId, roleId))
    // One row at a time: a card may carry 16 MiB of them, too much for one statement.
    for (const [position, file] of files.entries()) {
      await tx.insert(roleAssets).values({
        roleId,
        position,
        type: file.type,
        name: file.name,
        ext: file.ext,
        contentType: file.contentType,
        byteSize: file.bytes.length,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        bytes: file.bytes,
      })
    }
  }

  return {
    async createRole(write: RoleWrite, owner: Writer & { publicId: string; creatorId: string }) {
      return db.transaction(async (tx) => {
        const roleTagRows = await resolveTags(tx, write.tags, owner, owner.creatorId)
        const [row] = await tx
          .insert(roles)
          .values({
            ...columnsOf(write),
            publicId: owner.publicId,
            creatorId: owner.creatorId,
            searchText: searchText(write, roleTagRows),
          })
          .returning({ id: roles.id })
        if (!row) throw new Error('role was not created')
        if (roleTagRows.length > 0) {
          await tx.insert(roleTags).values(roleTagRows.map((t) => ({ roleId: row.id, tagId: t.id })))
        }
        await writeFiles(tx, row.id, write.files)
        return row.id
      })
    },

    /**
     * Saves the form. `sourceHash` is the hash of the texts written (role-texts' `sourceHashOf`):
     * translations made from other texts are marked stale in this same transaction.
     */
    async updateRole(id: number, write: RoleWrite, writer: Writer & { id: string }, sourceHash: string) {
      await db.transaction(async (tx) => {
        const before = await tagIdsOf(tx, id)
        const roleTagRows = await resolveTags(tx, write.tags, writer, writer.id)
        await tx
          .update(roles)
          .set({ ...columnsOf(write), searchText: searchText(write, roleTagRows), updatedAt: new Date() })
          .where(eq(roles.id, id))
        await tx.delete(roleTags).where(eq(roleTags.roleId, id))
        if (roleTagRows.length > 0) {
          await tx.insert(roleTags).values(roleTagRows.map((t) => ({ roleId: id, tagId: t.id })))
        }
        await writeFiles(tx, id, write.files)
        await afterSourceWrite(tx, id, sourceHash)
        await removeUnusedUserTags(tx, before)
      })
    },

    /**
     * Ratings, tags and reports go with it; chats keep their messages and lose the character. Tags
     * users made that only it carried go too.
     */
    async deleteRole(id: number) {
      await db.transaction(async (tx) => {
        const before = await tagIdsOf(tx, id)
        await tx.delete(roles).where(eq(roles.id, id))
        await removeUnusedUserTags(tx, before)
      })
    },

    /** How many of the tags that exist this user made: their limit is CHARACTER_LIMITS.userMadeTags. */
    async countTagsMadeBy(userId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(tags)
        .where(and(eq(tags.createdBy, userId), eq(tags.userMade, true)))
      return row?.n ?? 0
    },

    async findOwnership(publicId: string): Promise<RoleOwnership | null> {
      const [row] = await db.select(ownershipColumns).from(roles).where(eq(roles.publicId, publicId)).limit(1)
      return row ?? null
    },

    /** Everything about one character (for the edit form and for export). */
    async findFull(publicId: string) {
      const [row] = await db
        .select(fullColumns)
        .from(roles)
        .leftJoin(users, eq(users.id, roles.creatorId))
        .where(eq(roles.publicId, publicId))
        .limit(1)
      return row ?? null
    },

    /** The files a character's card carried, in order (for the exports). */
    async filesOf(roleId: number): Promise<CardFile[]> {
      return db
        .select({
          type: roleAssets.type,
          name: roleAssets.name,
          ext: roleAssets.ext,
          contentType: roleAssets.contentType,
          bytes: roleAssets.bytes,
        })
        .from(roleAssets)
        .where(eq(roleAssets.roleId, roleId))
        .orderBy(asc(roleAssets.position))
    },

    /** How many files a character keeps from its card (the edit form shows it). */
    async fileCountOf(roleId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(roleAssets).where(eq(roleAssets.roleId, roleId))
      return row?.n ?? 0
    },

    /** One user's characters, newest first. */
    async listOwnedBy(userId: string) {
      return db
        .select({
          id: roles.id,
          publicId: roles.publicId,
          name: roles.name,
          avatarImageId: roles.avatarImageId,
          avatarBlurredImageId: roles.avatarBlurredImageId,
          visibility: roles.visibility,
          isAdult: roles.isAdult,
          chatCount: roles.chatCount,
          createdAt: roles.createdAt,
          updatedAt: roles.updatedAt,
        })
        .from(roles)
        .where(eq(roles.creatorId, userId))
        .orderBy(desc(roles.createdAt), desc(roles.id))
    },

    async tagsOfRoles(roleIds: number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({ roleId: roleTags.roleId, slug: tags.slug, names: tags.names })
        .from(roleTags)
        .innerJoin(tags, eq(tags.id, roleTags.tagId))
        .where(inArray(roleTags.roleId, roleIds))
        .orderBy(tags.slug)
    },

    async allTags(): Promise<TagRow[]> {
      return db.select(tagColumns).from(tags)
    },

    async insertReport(report: { roleId: number; reporterId: string | null; reason: ReportReason; text: string }) {
      const [row] = await db.insert(roleReports).values(report).returning({ id: roleReports.id })
      return row?.id ?? null
    },

    async reportsOf(roleId: number) {
      return db.select().from(roleReports).where(eq(roleReports.roleId, roleId)).orderBy(roleReports.id)
    },
  }
}

export type CharactersRepo = ReturnType<typeof createCharactersRepo>
