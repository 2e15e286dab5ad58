import { and, eq, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { MessageAuthor, MessageStatus } from '#contracts/chat.ts'
import { type ChatMessageRow, chatMessages, chatSessions } from '#db/schema/chat.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { heldPlanIdSql } from '#server/modules/entitlements/entitlements.repo.ts'
import { attachedBooksJson } from '#server/modules/lorebooks/lorebooks.repo.ts'
import type { Tx } from './chat.repo.ts'
import { chatPersonaDescription, chatPersonaName } from './personas/personas.repo.ts'
import { sceneMemberCountSql } from './scene-members.repo.ts'

/** What the chat repos share: the message and session shapes their statements read and write. */

/** Characters of the newest message kept on the session for the chat list. */
export const PREVIEW_LENGTH = 200

// The indexes are written DESC NULLS LAST (drizzle-kit's way); the same order lets PostgreSQL use them.
export const newestFirst = sql`${chatMessages.id} desc nulls last`

/**
 * A chat's character as the chat's owner may see it now: a public one, or a private one only for
 * its creator. A character its creator made private after others started chatting with it joins
 * for nobody else, so its texts (the new private ones included) reach neither their prompts, nor
 * their pages, nor their data export; to them the chat reads like one whose character is gone.
 */
export const visibleChatRole = and(
  eq(roles.id, chatSessions.roleId),
  or(eq(roles.visibility, 'public'), eq(roles.creatorId, chatSessions.userId)),
)

/** Not deleted by its user (ADR 048): a chat in its undo window is gone for every call but restore. */
export const liveSession = isNull(chatSessions.deletedAt)

/**
 * Has a message of the user: a chat holding only the character's greeting is not history (ADR 048),
 * so My Chats, a character's chats and search leave it out. Written with the table's name, as it is
 * used in statements whose FROM holds chat_sessions alone.
 */
export const hasUserMessage = sql`exists (select 1 from ${chatMessages} um where um.session_id = "chat_sessions"."id" and um.author = 'user')`

export type ReplyToStore = {
  sessionId: string
  /** Add an alternative to this reply; null (or a reply deleted meanwhile) makes a new message. */
  messageId: number | null
  content: string
  tokens: number
  status: MessageStatus
  modelId: string
  diamondsSpent: number
  requestId: string | null
  /** The scene member who wrote it (ADR 052); null in a chat of one character. */
  speakerRoleId?: number | null | undefined
}

/** A message row as JSON with the keys of `ChatMessageRow` (`messageFromJson` reads it back). */
export const messageJson = (row: SQL) =>
  sql`json_build_object(
    'id', ${row}.id, 'sessionId', ${row}.session_id, 'author', ${row}.author,
    'content', ${row}.content, 'tokens', ${row}.tokens, 'status', ${row}.status,
    'modelId', ${row}.model_id, 'diamondsSpent', ${row}.diamonds_spent,
    'swipeId', ${row}.swipe_id, 'swipeIndex', ${row}.swipe_index, 'swipeCount', ${row}.swipe_count,
    'requestId', ${row}.request_id, 'createdAt', ${row}.created_at, 'editedAt', ${row}.edited_at,
    'imported', ${row}.imported, 'speakerRoleId', ${row}.speaker_role_id)`

export type MessageJson = Omit<ChatMessageRow, 'id' | 'swipeId' | 'createdAt' | 'editedAt'> & {
  id: number | string
  swipeId: number | string | null
  createdAt: string
  editedAt: string | null
}
export function messageFromJson(message: MessageJson): ChatMessageRow {
  return {
    ...message,
    id: Number(message.id),
    swipeId: message.swipeId === null ? null : Number(message.swipeId),
    createdAt: new Date(message.createdAt),
    editedAt: message.editedAt === null ? null : new Date(message.editedAt),
  }
}

/** The newest messages as `recentJson` reads them. */
export function parseRecent(json: string) {
  return (JSON.parse(json) as [number | string, MessageAuthor, string, number][]).map(
    ([id, author, content, tokens]) => ({ id: Number(id), author, content, tokens }),
  )
}

/** Puts the newest message's start on the session and moves it to the top of the user's list. */
export async function touchSession(tx: Tx, sessionId: string, modelId?: string) {
  await tx
    .update(chatSessions)
    .set({
      lastMessagePreview: sql`(select left(${chatMessages.content}, ${PREVIEW_LENGTH}) from ${chatMessages} where ${chatMessages.sessionId} = ${sessionId} order by ${newestFirst} limit 1)`,
      updatedAt: new Date(),
      ...(modelId ? { modelId } : {}),
    })
    .where(eq(chatSessions.id, sessionId))
}

export const sessionColumns = {
  id: chatSessions.id,
  userId: chatSessions.userId,
  modelId: chatSessions.modelId,
  memoryNote: chatSessions.memoryNote,
  memoryThroughId: chatSessions.memoryThroughId,
  memoryVersion: chatSessions.memoryVersion,
  memoryUpdatedAt: chatSessions.memoryUpdatedAt,
  summaryFailures: chatSessions.summaryFailures,
  summaryFailedAt: chatSessions.summaryFailedAt,
  summaryFailureCode: chatSessions.summaryFailureCode,
  lastMessagePreview: chatSessions.lastMessagePreview,
  temperature: chatSessions.temperature,
  replyTokens: chatSessions.replyTokens,
  language: chatSessions.language,
  authorNote: chatSessions.authorNote,
  authorNoteDepth: chatSessions.authorNoteDepth,
  title: chatSessions.title,
  pinnedAt: chatSessions.pinnedAt,
  createdAt: chatSessions.createdAt,
  updatedAt: chatSessions.updatedAt,
  roleId: chatSessions.roleId,
  rolePublicId: roles.publicId,
  roleName: roles.name,
  roleAvatarImageId: roles.avatarImageId,
  roleAvatarBlurredImageId: roles.avatarBlurredImageId,
  roleIsAdult: roles.isAdult,
  /** The character exists but its creator made it private: the chat is unavailable to this user. */
  roleWithheld: sql<boolean>`(${chatSessions.roleId} is not null and ${roles.id} is null)`,
}

// The queries between the user pressing send and the model being asked, prepared once: building
// Drizzle's SQL costs more CPU than PostgreSQL spends running them (bench/chat-overhead.ts).
export function findSessionQueryFields() {
  return {
    ...sessionColumns,
    roleId: chatSessions.roleId,
    roleDescription: roles.description,
    rolePersonality: roles.personality,
    roleScenario: roles.scenario,
    roleIntroduction: roles.introduction,
    roleExampleDialogue: roles.exampleDialogue,
    roleCharacterBook: roles.characterBook,
    // The user's lorebooks attached to the character (ADR 043), merged after its own by characterOf.
    roleAttachedBooks: attachedBooksJson(chatSessions.roleId),
    roleSystemPrompt: sql<string | null>`${roles.cardExtras}->>'systemPrompt'`,
    rolePostHistoryInstructions: sql<string | null>`${roles.cardExtras}->>'postHistoryInstructions'`,
    // The name `{{user}}` stands for: the chat's persona (ADR 049), else the account name.
    username: sql<string>`coalesce(${chatPersonaName(chatSessions.id)}, ${users.username})`,
    personaDescription: chatPersonaDescription(chatSessions.id),
    // The paid plan the user holds now (the rule is entitlements'), read here to save the model
    // call one more query; null means the free plan. What the plan allows comes from entitlements.
    paidPlanId: heldPlanIdSql(sql`${chatSessions.userId}`),
    // Rows in the chat's scene (ADR 052); under two, the reply needs no cast and no query for one.
    sceneMembers: sceneMemberCountSql(chatSessions.id),
  }
}

export const recentJson = sql<string>`(
  select coalesce(json_agg(json_build_array(h.id, h.author, h.content, h.tokens) order by h.id desc), '[]')::text
  from (
    select ${chatMessages.id} as id, ${chatMessages.author} as author,
           ${chatMessages.content} as content, ${chatMessages.tokens} as tokens
    from ${chatMessages}
    where ${chatMessages.sessionId} = ${chatSessions.id}
    order by ${newestFirst}
    limit ${sql.placeholder('limit')}
  ) h)`
