import { z } from 'zod'
import {
  CHAT_PROVIDER_KINDS,
  CHAT_PROVIDER_STATES,
  MEMORY_NOTE_MAX_LENGTH,
  MESSAGE_AUTHORS,
  MESSAGE_STATUSES,
  MESSAGES_PAGE_SIZE_DEFAULT,
  MESSAGES_PAGE_SIZE_MAX,
  MODEL_FAILURE_KINDS,
  MODEL_FAILURE_REASONS,
  SESSIONS_PAGE_SIZE_DEFAULT,
  SESSIONS_PAGE_SIZE_MAX,
  SUMMARY_FAILURE_CODES,
} from './chat.ts'
import { LOCALES } from './locales.ts'

// zod schemas of the chat API, for the server, the OpenAPI document and the chat page. Kept apart
// from `chat.ts` so code that only needs the constants and types does not ship zod.

/**
 * Any string is accepted as a session id: one that is not a session of the caller, malformed or
 * not, is answered 404 INVALID_SESSION ('Invalid session!'), never a validation error.
 */
export const sessionIdSchema = z.string().min(1).max(100)
export const messageIdSchema = z.number().int().positive()
/**
 * Chosen by the client, fresh for every user action (a UUID fits); sent again only to repeat the
 * same action after its answer was lost. The repeat gets the outcome already stored, never a second
 * reply or a second charge.
 */
export const requestIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8-64 letters, digits, _ or -')
  .optional()
/** The message text. Its length bound (CHAT_MESSAGE_MAX_LENGTH) answers MESSAGE_TOO_LONG, not a validation error. */
const messageText = z.string().max(1_000_000)

/** A setting a user may change per chat: its bounds and the model's own value (null: the server's default). */
const settingBoundsSchema = z.object({ min: z.number(), max: z.number(), default: z.number().nullable() })

export const publicModelSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  premium: z.boolean(),
  /** What one reply costs (0 for free models). */
  diamondsPerMessage: z.number().int(),
  /** The most the model takes in, prompt and reply, in tokens. */
  contextTokens: z.number().int(),
  /** What a user may set per chat (ADR 033); null: the operator forbids changing it. */
  userSettings: z.object({ temperature: settingBoundsSchema.nullable(), replyTokens: settingBoundsSchema.nullable() }),
})
/** What serves chat and whether it is ready (ADR 037): no paths, no hints. */
export const chatProviderSchema = z.object({
  kind: z.enum(CHAT_PROVIDER_KINDS),
  state: z.enum(CHAT_PROVIDER_STATES),
  percent: z.number().min(0).max(100).nullable(),
  failure: z.string().nullable(),
})

export const modelListSchema = z.object({
  models: z.array(publicModelSchema),
  defaultModelId: z.string(),
  /**
   * By model id: false when the last check (every minute) found its server down or refusing us.
   * The chat says "no model reachable" when `anyReachable` is false (ADR 031).
   */
  reachable: z.record(z.string(), z.boolean()),
  anyReachable: z.boolean(),
  chatProvider: chatProviderSchema,
})

export const chatMessageSchema = z.object({
  id: z.number().int(),
  author: z.enum(MESSAGE_AUTHORS),
  /** For a reply: the text of the selected alternative (swipe). */
  content: z.string(),
  status: z.enum(MESSAGE_STATUSES),
  /** The model that wrote the selected alternative; null for user messages and greetings. */
  modelId: z.string().nullable(),
  diamondsSpent: z.number().int(),
  /** Position of the selected alternative among `swipeCount`; user messages have none (0 and 0). */
  swipeIndex: z.number().int(),
  swipeCount: z.number().int(),
  createdAt: z.string(),
  editedAt: z.string().nullable(),
  /** Brought in from a chat file (ADR 051): written elsewhere and cost nothing. */
  imported: z.boolean(),
  /** In a scene (ADR 052): the character who wrote this reply (public id and name); absent or null: the chat's character. */
  speaker: z.object({ id: z.string(), name: z.string() }).nullable().optional(),
})

export const chatRoleSchema = z.object({ id: z.string(), name: z.string(), avatar: z.string().nullable() })

export const contextUsageSchema = z.object({
  /** The model the figures are for: the one chosen in the call, else the session's last, else the default. */
  modelId: z.string(),
  /** The plan's memory, in thousands of tokens. */
  memoryK: z.number().int(),
  /** min(memoryK × 1000, the model's context): what the next call may use, prompt and reply. */
  windowTokens: z.number().int(),
  /** Kept free for the reply. */
  replyReserveTokens: z.number().int(),
  /** windowTokens − replyReserveTokens: the prompt's room. The gauge is usedTokens / budgetTokens. */
  budgetTokens: z.number().int(),
  /** What the next prompt takes: character, memory note, example dialogue and the messages that fit. */
  usedTokens: z.number().int(),
  /** Messages the next prompt carries, newest first. */
  includedMessages: z.number().int(),
  /** True when older messages no longer fit (they live on in the memory note). */
  trimmed: z.boolean(),
})

export const memorySchema = z.object({
  note: z.string(),
  /** Messages up to this id have been summarised into the note by the model. */
  coversThroughMessageId: z.number().int().nullable(),
  updatedAt: z.string().nullable(),
  /**
   * Summaries keep failing (SUMMARY_NOTICE_FAILURES in a row or more): since when, why, and whether
   * they were given up until the next reply (ADR 034). null: memory is updating.
   */
  summaryProblem: z
    .object({
      failures: z.number().int(),
      lastFailedAt: z.string(),
      code: z.enum(SUMMARY_FAILURE_CODES),
      gaveUp: z.boolean(),
    })
    .nullable(),
})

export const chatSessionSummarySchema = z.object({
  id: z.string(),
  /** null when the character was deleted: show 'Unknown Role'. */
  role: chatRoleSchema.nullable(),
  /** The start of the newest message (at most 200 characters), null for an empty chat. */
  lastMessage: z.string().nullable(),
  /** The user's name for the chat (ADR 048); null: show the character's name. */
  title: z.string().nullable(),
  /** Pinned on top of My Chats (ADR 048). */
  pinned: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** A scene's members by name, in order (ADR 052); absent for a chat of one character. */
  members: z.array(z.string()).optional(),
})

export const chatSessionListSchema = z.object({
  sessions: z.array(chatSessionSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

/**
 * A chat's own generation settings (ADR 033); null: the model's default. Each generation clamps
 * them to the bounds of the model it uses.
 */
export const chatGenerationSettingsSchema = z.object({
  temperature: z.number().nullable(),
  /** The longest reply, in tokens. */
  replyTokens: z.number().int().nullable(),
})

/** The language the character writes in (ADR 038); null: the site's language at each request. */
const chatLanguageSchema = z.enum(LOCALES).nullable()

export const chatSettingsSchema = chatGenerationSettingsSchema.extend({ language: chatLanguageSchema })

export const chatSessionDetailSchema = chatSessionSummarySchema.extend({
  /** The model of the latest reply (null before the first one). */
  modelId: z.string().nullable(),
  memory: memorySchema,
  settings: chatSettingsSchema,
  /** The chat's author's note (ADR 053). */
  authorNote: z.object({ text: z.string(), depth: z.number().int() }),
  context: contextUsageSchema,
  plan: z.object({ planId: z.string(), memoryK: z.number().int(), premiumModels: z.boolean() }),
})

export const createdSessionSchema = chatSessionDetailSchema.extend({
  /** The character's greeting (its alternatives are its swipes), or null when the character has none. */
  firstMessage: chatMessageSchema.nullable(),
})

export const messagePageSchema = z.object({
  /** Newest first. */
  items: z.array(chatMessageSchema),
  /** Pass as `before` for the next (older) page; null on the oldest page. */
  nextBefore: z.number().int().nullable(),
  /** Messages in the session. */
  total: z.number().int(),
})

/** What a stored reply came with: the stored message, its cost, the balance and the context gauge. */
export const chatReplySchema = z.object({
  /** The spec's field: the reply text. */
  content: z.string(),
  sessionId: z.string(),
  /** The user message answered (null for a regeneration of a reply). */
  userMessage: chatMessageSchema.nullable(),
  reply: chatMessageSchema,
  /** True when the reply was stopped (status interrupted) rather than completed. */
  stopped: z.boolean(),
  /** True when this is the answer stored for an earlier call with the same requestId (nothing new was generated). */
  replayed: z.boolean(),
  diamondsSpent: z.number().int(),
  /** The user's diamonds after this reply. */
  balance: z.number().int(),
  context: contextUsageSchema,
})

export const sessionRef = z.object({ sessionId: sessionIdSchema })
export const sessionRefLoose = z.object({ sessionId: sessionIdSchema.optional() })

export const createSessionBody = z.object({
  roleId: z.string().min(1).max(100),
  /** The interface's language: the greeting is the character's in it when it has one (ADR 039). */
  locale: z.enum(LOCALES).optional(),
})
export const sessionsBody = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(SESSIONS_PAGE_SIZE_MAX).default(SESSIONS_PAGE_SIZE_DEFAULT),
  /** The interface's language: characters are named in it where they have a name there (ADR 039). */
  locale: z.enum(LOCALES).optional(),
})
export const sessionBody = sessionRefLoose.extend({
  chatModelId: z.string().min(1).max(100).optional(),
  /** As for `sessionsBody`. */
  locale: z.enum(LOCALES).optional(),
})
export const messagesBody = sessionRefLoose.extend({
  before: messageIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGES_PAGE_SIZE_MAX).default(MESSAGES_PAGE_SIZE_DEFAULT),
})
/**
 * The interface's language when the request is made: the model writes in it unless the chat has a
 * language of its own (ADR 038). Left out: the `lang` cookie, else the user's own language is left
 * to the model.
 */
const requestLocale = z.enum(LOCALES).optional()
export const chatBody = z.object({
  sessionId: sessionIdSchema,
  message: messageText,
  /** Defaults to the session's last model, else the platform's default model. */
  chatModelId: z.string().min(1).max(100).optional(),
  requestId: requestIdSchema,
  locale: requestLocale,
  /** In a scene (ADR 052): the member who answers (its public id); else the scene's mode chooses. */
  speaker: z.string().min(1).max(100).optional(),
})
export const regenerateBody = z.object({
  sessionId: sessionIdSchema,
  chatModelId: z.string().min(1).max(100).optional(),
  requestId: requestIdSchema,
  locale: requestLocale,
})
export const selectSwipeBody = z.object({
  sessionId: sessionIdSchema,
  messageId: messageIdSchema,
  swipeIndex: z.number().int().min(0),
})
export const messageRefBody = z.object({ sessionId: sessionIdSchema, messageId: messageIdSchema })
export const editMessageBody = messageRefBody.extend({ content: messageText })
/**
 * Any finite number passes here: the chat's model decides what is allowed, once the chat is known
 * to be the caller's (CHAT_SETTING_OUT_OF_BOUNDS, CHAT_SETTING_LOCKED). null: the model's default.
 */
export const updateSettingsBody = chatGenerationSettingsSchema.extend({
  sessionId: sessionIdSchema,
  /** Left out: the chat's language stays as it is. */
  language: chatLanguageSchema.optional(),
  /** The model the bounds are read from: the one chosen in the chat, else the session's last, else the default. */
  chatModelId: z.string().min(1).max(100).optional(),
})
export const updateMemoryBody = z.object({ sessionId: sessionIdSchema, note: z.string().max(MEMORY_NOTE_MAX_LENGTH) })

export const swipeListSchema = z.object({
  messageId: z.number().int(),
  selectedIndex: z.number().int(),
  swipes: z.array(
    z.object({
      index: z.number().int(),
      content: z.string(),
      status: z.enum(MESSAGE_STATUSES),
      modelId: z.string().nullable(),
      createdAt: z.string(),
    }),
  ),
})

export const editedMessageSchema = z.object({
  message: chatMessageSchema,
  /** The later messages that were deleted: the conversation continues from the edited message. */
  removedMessageIds: z.array(z.number().int()),
})

/** The data of each server-sent event; the event name is the key. */
export const chatStreamEventSchemas = {
  /** First event, once the user's message is stored and the model is being asked. */
  start: z.object({
    sessionId: z.string(),
    /** The stored user message (null when regenerating). */
    userMessage: chatMessageSchema.nullable(),
    modelId: z.string(),
    /** True when the stored answer of an earlier call with this requestId follows (no new generation). */
    replayed: z.boolean(),
    /** In a scene (ADR 052): the character writing this reply. */
    speaker: z.object({ id: z.string(), name: z.string() }).nullable().optional(),
  }),
  /** A piece of the model's reasoning ("thinking"), in order: shown collapsed, never stored (ADR 031). */
  reasoning: z.object({ text: z.string() }),
  /** A piece of the reply, in order; concatenate them. */
  delta: z.object({ text: z.string() }),
  /** Last event of a completed reply: the stored message, what it cost, the balance and the gauge. */
  done: chatReplySchema,
  /** Last event when the reply was stopped (POST /api/chat/stop); the partial reply is kept if any. */
  stopped: z.object({ reply: chatMessageSchema.nullable(), partialKept: z.boolean() }),
  /** Last event when the reply failed. The user's message stays; retry with regenerate. */
  error: z.object({
    /**
     * MODEL_ERROR or one of MODEL_FAILURE_CODES (what the provider's refusal means), INSUFFICIENT_DIAMONDS,
     * SERVICE_UNAVAILABLE (server shutting down, database unreachable) or INTERNAL_ERROR.
     */
    code: z.string(),
    kind: z.enum(MODEL_FAILURE_KINDS).nullable(),
    reason: z.enum(MODEL_FAILURE_REASONS).nullable(),
    /** Whether a retry (regenerate) can help. */
    retryable: z.boolean(),
    /** The model provider's Retry-After, in seconds. */
    retryAfterSeconds: z.number().int().positive().optional(),
    message: z.string(),
    /** True when the text received before the failure was stored as an interrupted reply. */
    partialKept: z.boolean(),
    reply: chatMessageSchema.nullable(),
    userMessageId: z.number().int().nullable(),
  }),
} as const
