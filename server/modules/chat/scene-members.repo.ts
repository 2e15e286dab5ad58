import { type AnyColumn, and, asc, eq, inArray, isNull, max, or, type SQL, sql } from 'drizzle-orm'
import type { SceneMode } from '#contracts/chat-scenes.ts'
import type { Db, Tx } from '#db/client.ts'
import { chatMembers, chatMessages, chatSessions } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { attachedBooksJson } from '#server/modules/lorebooks/lorebooks.repo.ts'

/**
 * The members of a scene (ADR 052): the one owner of `chat_members`. A chat without rows is a scene
 * of one (its `chat_sessions.role_id`); the rows are written when a second character joins.
 */

/** A member as the user sees it: public or theirs (a character made private meanwhile is left out, as for the chat's own). */
const visibleMember = and(
  eq(roles.id, chatMembers.roleId),
  or(eq(roles.visibility, 'public'), eq(roles.creatorId, chatSessions.userId)),
)

const memberFields = {
  roleId: chatMembers.roleId,
  position: chatMembers.position,
  publicId: roles.publicId,
  name: roles.name,
  avatarImageId: roles.avatarImageId,
  avatarBlurredImageId: roles.avatarBlurredImageId,
  isAdult: roles.isAdult,
  /** The public introduction: what the other members are told of this one, shortened (scene-prompt.ts). */
  introduction: roles.introduction,
  description: roles.description,
  personality: roles.personality,
  scenario: roles.scenario,
  exampleDialogue: roles.exampleDialogue,
  characterBook: roles.characterBook,
  attachedBooks: attachedBooksJson(chatMembers.roleId),
  systemPrompt: sql<string | null>`${roles.cardExtras}->>'systemPrompt'`,
  postHistoryInstructions: sql<string | null>`${roles.cardExtras}->>'postHistoryInstructions'`,
}

export type MemberRow = Awaited<ReturnType<ReturnType<typeof createSceneMembersRepo>['membersOf']>>[number]

/** How many characters a chat's scene holds (0 for a chat that never was one), read with the session (chat-rows.repo.ts). */
export const sceneMemberCountSql = (sessionId: SQL | AnyColumn) =>
  sql<number>`(select count(*)::int from ${chatMembers} where ${chatMembers.sessionId} = ${sessionId})`.mapWith(Number)

/** Copies a scene's members to a branch, in the branch's transaction (chat-branches.repo.ts). */
export async function copyMembers(tx: Tx, fromSessionId: string, toSessionId: string) {
  await tx.execute(sql`
    insert into ${chatMembers} (session_id, role_id, position, joined_at)
    select ${toSessionId}, role_id, position, joined_at from ${chatMembers} where session_id = ${fromSessionId}`)
}

export function createSceneMembersRepo(db: Db) {
  /** Locks the session row: members change one call at a time. Null when it is not the user's live chat. */
  async function lockSession(tx: Tx, sessionId: string, userId: string) {
    const [row] = await tx
      .select({ roleId: chatSessions.roleId })
      .from(chatSessions)
      .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), isNull(chatSessions.deletedAt)))
      .for('update')
    return row ?? null
  }

  const rowsOf = (tx: Tx | Db, sessionId: string) =>
    tx
      .select({ roleId: chatMembers.roleId, position: chatMembers.position })
      .from(chatMembers)
      .where(eq(chatMembers.sessionId, sessionId))
      .orderBy(asc(chatMembers.position))

  return {
    /** The members the user may see, in speaking order, with their cards; [] for a scene of one. */
    async membersOf(sessionId: string) {
      return db
        .select(memberFields)
        .from(chatMembers)
        .innerJoin(chatSessions, eq(chatSessions.id, chatMembers.sessionId))
        .innerJoin(roles, visibleMember)
        .where(eq(chatMembers.sessionId, sessionId))
        .orderBy(asc(chatMembers.position))
    },

    /**
     * Adds `roleId` last. The first call writes the chat's own character at position 0 and names it
     * the speaker of the chat's earlier replies. 'full', 'member' or 'gone' (not the user's chat) when
     * nothing changed.
     */
    async addMember(sessionId: string, userId: string, roleId: number, maxMembers: number) {
      return db.transaction(async (tx) => {
        const session = await lockSession(tx, sessionId, userId)
        if (!session) return 'gone' as const
        let rows = await rowsOf(tx, sessionId)
        if (rows.length === 0 && session.roleId !== null) {
          await tx.insert(chatMembers).values({ sessionId, roleId: session.roleId, position: 0 })
          await tx
            .update(chatMessages)
            .set({ speakerRoleId: session.roleId })
            .where(
              and(
                eq(chatMessages.sessionId, sessionId),
                eq(chatMessages.author, 'assistant'),
                isNull(chatMessages.speakerRoleId),
              ),
            )
          rows = [{ roleId: session.roleId, position: 0 }]
        }
        if (rows.some((r) => r.roleId === roleId)) return 'member' as const
        if (rows.length >= maxMembers) return 'full' as const
        const [last] = await tx
          .select({ position: max(chatMembers.position) })
          .from(chatMembers)
          .where(eq(chatMembers.sessionId, sessionId))
        await tx.insert(chatMembers).values({ sessionId, roleId, position: (last?.position ?? -1) + 1 })
        return 'added' as const
      })
    },

    /**
     * Removes `roleId`; the first member left becomes the chat's character (`chat_sessions.role_id`).
     * 'last' (the only member), 'absent' or 'gone' when nothing changed.
     */
    async removeMember(sessionId: string, userId: string, roleId: number) {
      return db.transaction(async (tx) => {
        const session = await lockSession(tx, sessionId, userId)
        if (!session) return 'gone' as const
        const rows = await rowsOf(tx, sessionId)
        if (!rows.some((r) => r.roleId === roleId)) return session.roleId === roleId ? 'last' : 'absent'
        if (rows.length <= 1) return 'last' as const
        await tx.delete(chatMembers).where(and(eq(chatMembers.sessionId, sessionId), eq(chatMembers.roleId, roleId)))
        const first = rows.find((r) => r.roleId !== roleId)
        if (first && session.roleId === roleId) {
          await tx.update(chatSessions).set({ roleId: first.roleId }).where(eq(chatSessions.id, sessionId))
        }
        return 'removed' as const
      })
    },

    async setMode(sessionId: string, userId: string, mode: SceneMode) {
      const updated = await db
        .update(chatSessions)
        .set({ sceneMode: mode })
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), isNull(chatSessions.deletedAt)))
        .returning({ id: chatSessions.id })
      return updated.length > 0
    },

    /** The mode of a chat (the send path's session view leaves it out). */
    async modeOf(sessionId: string): Promise<SceneMode> {
      const [row] = await db
        .select({ mode: chatSessions.sceneMode })
        .from(chatSessions)
        .where(eq(chatSessions.id, sessionId))
      return row?.mode ?? 'natural'
    },

    /** The speaker of each reply among `messageIds` (null: the chat's own character, before it was a scene). */
    async speakersOf(sessionId: string, messageIds: readonly number[]) {
      if (messageIds.length === 0) return new Map<number, number | null>()
      const rows = await db
        .select({ id: chatMessages.id, speakerRoleId: chatMessages.speakerRoleId })
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), inArray(chatMessages.id, [...messageIds])))
      return new Map(rows.map((r) => [r.id, r.speakerRoleId]))
    },

    /** The newest reply of each character in the chat (its id), for "who has not spoken longest". */
    async lastReplies(sessionId: string) {
      const rows = await db
        .select({ roleId: chatMessages.speakerRoleId, lastId: max(chatMessages.id) })
        .from(chatMessages)
        .where(and(eq(chatMessages.sessionId, sessionId), eq(chatMessages.author, 'assistant')))
        .groupBy(chatMessages.speakerRoleId)
      return rows.flatMap((r) => (r.roleId === null || r.lastId === null ? [] : [[r.roleId, r.lastId] as const]))
    },

    /** The members' names of each of these chats that is a scene (two members or more), in order. */
    async memberNames(sessionIds: readonly string[]) {
      const byChat = new Map<string, string[]>()
      if (sessionIds.length === 0) return byChat
      const rows = await db
        .select({ sessionId: chatMembers.sessionId, name: roles.name })
        .from(chatMembers)
        .innerJoin(chatSessions, eq(chatSessions.id, chatMembers.sessionId))
        .innerJoin(roles, visibleMember)
        .where(inArray(chatMembers.sessionId, [...sessionIds]))
        .orderBy(asc(chatMembers.sessionId), asc(chatMembers.position))
      for (const row of rows) byChat.set(row.sessionId, [...(byChat.get(row.sessionId) ?? []), row.name])
      for (const [id, names] of byChat) if (names.length < 2) byChat.delete(id)
      return byChat
    },

    /** Public ids and names of characters (speakers of past replies, members or not any more). */
    async namesOf(roleIds: readonly number[]) {
      if (roleIds.length === 0) return []
      return db
        .select({ id: roles.id, publicId: roles.publicId, name: roles.name })
        .from(roles)
        .where(inArray(roles.id, [...roleIds]))
    },
  }
}

export type SceneMembersRepo = ReturnType<typeof createSceneMembersRepo>
