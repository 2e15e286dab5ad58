import {
  CHAT_MESSAGE_MAX_LENGTH,
  type ChatMessage,
  type ChatReply,
  type ChatSessionSummary,
  type ContextUsage,
  INVALID_SESSION_MESSAGE,
  MODEL_FAILURE_CODES,
  type ModelFailureKind,
  type ModelFailureReason,
  messageLength,
} from '#contracts/chat.ts'
import { AppError } from '#server/lib/errors.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import { mergeLorebooks } from '#server/modules/lorebooks/merge-lorebooks.ts'
import type { LlmError } from '#server/modules/models/llm-client.ts'
import { RETRYABLE } from '#server/modules/models/model-failures.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import type { ChatMessageRow, ChatRepo, SessionView } from './chat.repo.ts'
import type { Character, contextWindow, HistoryMessage, Prompt } from './prompt.ts'

/**
 * What the chat's parts share: the shapes a turn reports in, the refusals, and the row-to-answer
 * mappings. No state and no database here.
 */

/** What the caller of a send or a regeneration hears while it runs. */
export type TurnHooks = {
  /** Fires (the client gone, a stop) to end the reply early; what came is kept. */
  signal?: AbortSignal | undefined
  /** The user's message is stored (or the repeat recognised) and the model is being asked. */
  onStart(start: {
    sessionId: string
    userMessage: ChatMessage | null
    modelId: string
    replayed: boolean
    /** In a scene (ADR 052): who writes the reply. */
    speaker?: { id: string; name: string }
  }): void
  onDelta(text: string): void
  /** The model's reasoning, as it streams: shown, never stored (ADR 031). */
  onReasoning?(text: string): void
}

export type ErrorEventData = {
  code: string
  kind: ModelFailureKind | null
  /** What the provider's refusal means (model-failures.ts); null when no model failed. */
  reason: ModelFailureReason | null
  /** Whether retrying can help. */
  retryable: boolean
  /** The provider's Retry-After, when it gave one. */
  retryAfterSeconds?: number
  message: string
  partialKept: boolean
  reply: ChatMessage | null
  userMessageId: number | null
}

/**
 * How a turn ended, once it started (failures before it starts are thrown as AppError).
 * `failed` carries both the AppError for JSON callers and the `error` event for streams.
 */
export type TurnOutcome =
  | { kind: 'done'; result: ChatReply }
  | { kind: 'stopped'; result: ChatReply | null; reply: ChatMessage | null }
  | { kind: 'failed'; error: AppError; event: ErrorEventData }

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Rows read per query while filling a context window. */
export const HISTORY_PAGE = 200

export const invalidSession = () => new AppError(404, 'INVALID_SESSION', INVALID_SESSION_MESSAGE)
/**
 * A turn needs the chat's character: gone (deleted), or withheld because its creator made it private
 * (only its creator may chat with it then). The user's messages stay readable either way.
 */
export function requireCharacter(session: Pick<SessionView, 'rolePublicId' | 'roleWithheld'>) {
  if (session.rolePublicId) return
  if (session.roleWithheld) {
    throw new AppError(
      403,
      'CHARACTER_UNAVAILABLE',
      'The character of this chat is private now: only its creator can chat with it. Your messages stay readable.',
    )
  }
  throw AppError.conflict('The character of this chat no longer exists.')
}
export const replyInProgress = () =>
  new AppError(409, 'REPLY_IN_PROGRESS', 'A reply is being written in this chat. Wait for it or stop it.')

export function toChatMessage(row: ChatMessageRow): ChatMessage {
  return {
    id: row.id,
    author: row.author,
    content: row.content,
    status: row.status,
    modelId: row.modelId,
    diamondsSpent: row.diamondsSpent,
    swipeIndex: row.swipeIndex,
    swipeCount: row.swipeCount,
    createdAt: row.createdAt.toISOString(),
    editedAt: row.editedAt?.toISOString() ?? null,
    imported: row.imported,
  }
}

export const toHistory = (row: Pick<ChatMessageRow, 'id' | 'author' | 'content' | 'tokens'>): HistoryMessage => ({
  id: row.id,
  author: row.author,
  content: row.content,
  tokens: row.tokens,
})

export function characterOf(session: SessionView): Character {
  return {
    name: session.roleName ?? '',
    description: session.roleDescription ?? '',
    personality: session.rolePersonality ?? '',
    scenario: session.roleScenario ?? '',
    exampleDialogue: session.roleExampleDialogue ?? '',
    systemPrompt: session.roleSystemPrompt ?? '',
    postHistoryInstructions: session.rolePostHistoryInstructions ?? '',
    lorebook: mergeLorebooks(session.roleCharacterBook, session.roleAttachedBooks),
  }
}

/** The English text of a provider's refusal, by its reason (the client shows its own, localized). */
const REASON_MESSAGES: Record<Exclude<ModelFailureReason, 'other'>, string> = {
  context_too_long: 'The conversation is too long for this model, even shortened.',
  model_not_found: 'This model is not served by its model server.',
  unreachable: 'The model server cannot be reached.',
  credentials_refused: 'The model server refused our credentials.',
  rate_limited: 'The model server is receiving too many requests.',
  overloaded: 'The model server is overloaded.',
  template_refused: "The model's chat template refused this conversation.",
  reasoning_only: 'The model only thought and wrote no reply.',
  preparing: 'The model is being prepared (downloaded or loaded).',
}

export function failureMessage(error: LlmError): string {
  if (error.reason !== 'other') return REASON_MESSAGES[error.reason]
  switch (error.kind) {
    case 'timeout':
      return 'The model did not answer in time.'
    case 'aborted':
      return 'The reply was stopped.'
    case 'cut':
      return 'The connection to the model broke off mid-reply.'
    case 'invalid':
      return 'The model sent an answer that could not be used.'
    default:
      return 'The model could not reply.'
  }
}

/**
 * A model failure as the caller sees it: the AppError for JSON callers and the same content as the
 * stream's `error` event. `shutdown` (the server stopping the turn) answers 503 whatever failed.
 */
export function failedTurn(
  failure: LlmError,
  shutdown: boolean,
  kept: Pick<ErrorEventData, 'partialKept' | 'reply' | 'userMessageId'>,
): { kind: 'failed'; error: AppError; event: ErrorEventData } {
  const code = shutdown ? 'SERVICE_UNAVAILABLE' : MODEL_FAILURE_CODES[failure.reason]
  const message = shutdown ? 'The server is restarting. Please retry.' : failureMessage(failure)
  const details = {
    kind: failure.kind,
    reason: shutdown ? null : failure.reason,
    retryable: shutdown || RETRYABLE[failure.reason],
    ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: failure.retryAfterSeconds }),
    ...kept,
  }
  const status = shutdown ? 503 : failure.kind === 'timeout' ? 504 : 502
  return { kind: 'failed', error: new AppError(status, code, message, details), event: { code, message, ...details } }
}

export function checkText(text: string) {
  const length = messageLength(text)
  if (length > CHAT_MESSAGE_MAX_LENGTH) {
    throw new AppError(400, 'MESSAGE_TOO_LONG', `A message may have at most ${CHAT_MESSAGE_MAX_LENGTH} characters.`, {
      maxLength: CHAT_MESSAGE_MAX_LENGTH,
      length,
    })
  }
  if (!text.trim()) throw AppError.badRequest('The message is empty.')
}

export function usageOf(
  prompt: Prompt,
  model: ModelConfig,
  plan: { memoryK: number },
  window: ReturnType<typeof contextWindow>,
): ContextUsage {
  return {
    modelId: model.id,
    memoryK: plan.memoryK,
    windowTokens: window.windowTokens,
    replyReserveTokens: window.replyReserveTokens,
    budgetTokens: window.budgetTokens,
    usedTokens: prompt.usedTokens,
    includedMessages: prompt.included.length,
    trimmed: prompt.trimmed,
  }
}

export function roleOf(
  row: Pick<
    SessionView,
    'rolePublicId' | 'roleName' | 'roleAvatarImageId' | 'roleAvatarBlurredImageId' | 'roleIsAdult'
  >,
  adultOk: boolean,
) {
  if (!row.rolePublicId) return null
  return {
    id: row.rolePublicId,
    name: row.roleName ?? '',
    avatar: imageUrl(row.roleIsAdult && !adultOk ? row.roleAvatarBlurredImageId : row.roleAvatarImageId),
  }
}

/** `localName`: the character's name in the chat's language, when it has one there (ADR 039). */
export function summaryOf(
  row: SessionView | Awaited<ReturnType<ChatRepo['listSessions']>>[number],
  adultOk: boolean,
  localName?: string | null,
) {
  const role = roleOf(row, adultOk)
  return {
    id: row.id,
    role: role && localName ? { ...role, name: localName } : role,
    lastMessage: row.lastMessagePreview,
    title: row.title,
    pinned: row.pinnedAt !== null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  } satisfies ChatSessionSummary
}
