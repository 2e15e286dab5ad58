import { and, asc, count, desc, eq, lte, sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { liveSession, touchSession } from './chat-rows.repo.ts'
import { copyChatPersona } from './personas/personas.repo.ts'
import { copyMembers } from './scene-members.repo.ts'

/** The rows of a statement run with `execute` (node-postgres answers `{ rows }`, PGlite too; some drivers an array). */
const rowsOf = (result: unknown) =>
  (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as Record<string, unknown>[]

/** Branches (ADR 050): a chat copied up to one of its messages, and the links between a chat and its branches. */
export function createChatBranchesRepo(db: Db) {
  return {
    /**
     * A new chat of `userId` holding the history of `sessionId` up to and including `messageId`:
     * each message as it reads now (its chosen alternative only, which becomes the copy's one
     * alternative), its time and edit time kept; nothing spent (the copies cost nothing). The
     * settings (model, temperature, reply length, language, the author's note) come along. The memory note comes
     * along only when it knows nothing after `messageId` (`memoryThroughId` at or before it, or a
     * note the user wrote before any summary); its reach then points at the copy of that message.
     * The chat's persona (ADR 049) comes along too.
     * Null when the message is not in that user's chat. The original is only read.
     */
    async branchSession(input: { userId: string; sessionId: string; messageId: number }) {
      return db.transaction(async (tx) => {
        const [source] = await tx
          .select({
            roleId: chatSessions.roleId,
            modelId: chatSessions.modelId,
            memoryNote: chatSessions.memoryNote,
            memoryThroughId: chatSessions.memoryThroughId,
            memoryUpdatedAt: chatSessions.memoryUpdatedAt,
            temperature: chatSessions.temperature,
            replyTokens: chatSessions.replyTokens,
            language: chatSessions.language,
            authorNote: chatSessions.authorNote,
            authorNoteDepth: chatSessions.authorNoteDepth,
            sceneMode: chatSessions.sceneMode,
            pointId: chatMessages.id,
          })
          .from(chatSessions)
          .innerJoin(
            chatMessages,
            and(eq(chatMessages.sessionId, chatSessions.id), eq(chatMessages.id, input.messageId)),
          )
          .where(and(eq(chatSessions.id, input.sessionId), eq(chatSessions.userId, input.userId), liveSession))
        if (!source) return null
        const noteKnowsOnlyThePast = source.memoryThroughId === null || source.memoryThroughId <= input.messageId
        const [branch] = await tx
          .insert(chatSessions)
          .values({
            userId: input.userId,
            roleId: source.roleId,
            modelId: source.modelId,
            temperature: source.temperature,
            replyTokens: source.replyTokens,
            language: source.language,
            authorNote: source.authorNote,
            authorNoteDepth: source.authorNoteDepth,
            sceneMode: source.sceneMode,
            parentSessionId: input.sessionId,
            parentMessageId: input.messageId,
            ...(noteKnowsOnlyThePast && source.memoryNote
              ? { memoryNote: source.memoryNote, memoryUpdatedAt: source.memoryUpdatedAt }
              : {}),
          })
          .returning({ id: chatSessions.id })
        if (!branch) throw new Error('branch was not created')
        // One INSERT … SELECT … ORDER BY: identity values are drawn in the order the rows arrive,
        // so the copies' ids ascend as the originals' do and the two lists pair up once sorted.
        const copied = rowsOf(
          await tx.execute(sql`
            insert into ${chatMessages}
              (session_id, author, content, tokens, status, model_id, diamonds_spent, swipe_index, swipe_count, created_at, edited_at, speaker_role_id)
            select ${branch.id}, author, content, tokens, status, model_id, 0, 0,
                   case when author = 'assistant' then 1 else 0 end, created_at, edited_at, speaker_role_id
              from ${chatMessages}
             where session_id = ${input.sessionId} and id <= ${input.messageId}
             order by id
            returning id`),
        )
          .map((row) => Number(row.id))
          .sort((a, b) => a - b)
        // Each reply's one alternative is the text it shows.
        await tx.execute(sql`
          insert into ${chatSwipes} (message_id, content, tokens, status, model_id, diamonds_spent, created_at)
          select id, content, tokens, status, model_id, 0, created_at
            from ${chatMessages}
           where session_id = ${branch.id} and author = 'assistant'`)
        await tx.execute(sql`
          update ${chatMessages} m set swipe_id = s.id
            from ${chatSwipes} s
           where s.message_id = m.id and m.session_id = ${branch.id}`)
        if (noteKnowsOnlyThePast && source.memoryThroughId !== null) {
          const [covered] = await tx
            .select({ n: count() })
            .from(chatMessages)
            .where(and(eq(chatMessages.sessionId, input.sessionId), lte(chatMessages.id, source.memoryThroughId)))
          const n = covered?.n ?? 0
          const throughId = n > 0 ? (copied[n - 1] ?? null) : null
          await tx.update(chatSessions).set({ memoryThroughId: throughId }).where(eq(chatSessions.id, branch.id))
        }
        await copyChatPersona(tx, input.sessionId, branch.id)
        // A scene's members come along, in their order (ADR 052).
        await copyMembers(tx, input.sessionId, branch.id)
        await touchSession(tx, branch.id)
        return { sessionId: branch.id, copiedMessages: copied.length }
      })
    },

    /**
     * The chat `sessionId` was branched from (when it still exists and is not deleted, ADR 048) and
     * the chats branched from it (deleted ones left out),
     * newest first (at most `limit`), all `userId`'s; null when the chat is not theirs.
     */
    async branchLinks(sessionId: string, userId: string, limit: number) {
      const [own] = await db
        .select({ parentSessionId: chatSessions.parentSessionId, parentMessageId: chatSessions.parentMessageId })
        .from(chatSessions)
        .where(and(eq(chatSessions.id, sessionId), eq(chatSessions.userId, userId), liveSession))
      if (!own) return null
      const parent = own.parentSessionId
        ? ((
            await db
              .select({
                id: chatSessions.id,
                createdAt: chatSessions.createdAt,
                lastMessagePreview: chatSessions.lastMessagePreview,
              })
              .from(chatSessions)
              .where(and(eq(chatSessions.id, own.parentSessionId), eq(chatSessions.userId, userId), liveSession))
          )[0] ?? null)
        : null
      const branches = await db
        .select({
          id: chatSessions.id,
          parentMessageId: chatSessions.parentMessageId,
          createdAt: chatSessions.createdAt,
          lastMessagePreview: chatSessions.lastMessagePreview,
        })
        .from(chatSessions)
        .where(and(eq(chatSessions.parentSessionId, sessionId), eq(chatSessions.userId, userId), liveSession))
        .orderBy(desc(chatSessions.createdAt), asc(chatSessions.id))
        .limit(limit)
      return { parent, parentMessageId: own.parentMessageId, branches }
    },
  }
}
