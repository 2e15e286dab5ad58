import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { MessageAuthor } from '#contracts/chat.ts'
import type { Db } from '#db/client.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { liveSession, touchSession, visibleChatRole } from '../chat-rows.repo.ts'

export type ImportedMessage = {
  author: MessageAuthor
  sentAt: Date
  /** Every alternative of a reply (one for a user message), each with its tokens. */
  swipes: { content: string; tokens: number; sentAt: Date }[]
  shown: number
}

// Rows per INSERT: well under PostgreSQL's 65,535 parameters a statement.
const BATCH = 1000

/** A chat's whole history read for a download, and an imported chat written in one transaction (ADR 051). */
export function createChatTransferRepo(db: Db) {
  return {
    /**
     * `userId`'s chat with its character's name (null when gone or withheld), the user's name, every
     * message oldest first and every alternative of each; null when the chat is not theirs.
     */
    async chatForExport(sessionId: string, userId: string) {
      const [session] = await db
        .select({
          createdAt: chatSessions.createdAt,
          roleName: roles.name,
          username: users.username,
          authorNote: chatSessions.authorNote,
          authorNoteDepth: chatSessions.authorNoteDepth,
        })
        .from(chatSessions)
        .innerJoin(users, eq(users.id, chatSessions.userId))
        .leftJoin(roles, visibleChatRole)
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession))
      if (!session) return null
      const messages = await db
        .select({
          id: chatMessages.id,
          author: chatMessages.author,
          content: chatMessages.content,
          modelId: chatMessages.modelId,
          swipeIndex: chatMessages.swipeIndex,
          createdAt: chatMessages.createdAt,
          // A scene's reply names its speaker (ADR 052); null: the chat's character.
          speakerName: sql<
            string | null
          >`(select ${roles.name} from ${roles} where ${roles.id} = ${chatMessages.speakerRoleId})`,
        })
        .from(chatMessages)
        .where(eq(chatMessages.sessionId, sessionId))
        .orderBy(asc(chatMessages.id))
      const ids = messages.map((m) => m.id)
      const swipes =
        ids.length === 0
          ? []
          : await db
              .select({
                messageId: chatSwipes.messageId,
                content: chatSwipes.content,
                modelId: chatSwipes.modelId,
                createdAt: chatSwipes.createdAt,
              })
              .from(chatSwipes)
              .where(inArray(chatSwipes.messageId, ids))
              .orderBy(asc(chatSwipes.id))
      return { ...session, messages, swipes }
    },

    /**
     * A new chat of `userId` with the character `roleId` holding `messages`, all marked imported and
     * costing nothing, dated as the file dates them; moved to the top of the user's chats. One
     * transaction: a failure stores nothing.
     */
    async storeImportedChat(input: {
      userId: string
      roleId: number
      createdAt: Date
      messages: ImportedMessage[]
      authorNote?: { text: string; depth: number } | undefined
    }): Promise<string> {
      return db.transaction(async (tx) => {
        const [session] = await tx
          .insert(chatSessions)
          .values({
            userId: input.userId,
            roleId: input.roleId,
            createdAt: input.createdAt,
            ...(input.authorNote ? { authorNote: input.authorNote.text, authorNoteDepth: input.authorNote.depth } : {}),
          })
          .returning({ id: chatSessions.id })
        if (!session) throw new Error('session was not created')
        for (let start = 0; start < input.messages.length; start += BATCH) {
          const batch = input.messages.slice(start, start + BATCH)
          const rows = await tx
            .insert(chatMessages)
            .values(
              batch.map((m) => {
                const shown = m.swipes[m.shown] ?? m.swipes[0]
                return {
                  sessionId: session.id,
                  author: m.author,
                  content: shown?.content ?? '',
                  tokens: shown?.tokens ?? 0,
                  swipeIndex: m.author === 'assistant' ? m.shown : 0,
                  swipeCount: m.author === 'assistant' ? m.swipes.length : 0,
                  imported: true,
                  createdAt: m.sentAt,
                }
              }),
            )
            .returning({ id: chatMessages.id })
          // Identity values are drawn in the order of the VALUES list: sorted ids match the batch.
          const ids = rows.map((r) => r.id).sort((a, b) => a - b)
          const swipes = batch.flatMap((m, i) =>
            m.author === 'assistant'
              ? m.swipes.map((s) => ({
                  messageId: ids[i] as number,
                  content: s.content,
                  tokens: s.tokens,
                  status: 'complete' as const,
                  createdAt: s.sentAt,
                }))
              : [],
          )
          for (let from = 0; from < swipes.length; from += BATCH) {
            await tx.insert(chatSwipes).values(swipes.slice(from, from + BATCH))
          }
        }
        // Each reply points at its shown alternative: the swipe_index-th of its own, by id.
        await tx.execute(sql`
          update ${chatMessages} m set swipe_id = (
            select s.id from ${chatSwipes} s where s.message_id = m.id order by s.id offset m.swipe_index limit 1)
          where m.session_id = ${session.id} and m.swipe_count > 0`)
        await touchSession(tx, session.id)
        return session.id
      })
    },
  }
}

export type ChatTransferRepo = ReturnType<typeof createChatTransferRepo>
