import type { ChatExportFormat, ChatImportResult } from '#contracts/chat-transfer.ts'
import { AppError } from '#server/lib/errors.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import type { ChatRepo } from '../chat.repo.ts'
import { invalidSession, UUID } from '../chat-views.ts'
import type { ChatTransferRepo } from './chat-transfer.repo.ts'
import {
  ChatFileProblem,
  humanizedDate,
  type PortableChat,
  readSillyTavernChat,
  writeMarkdownChat,
  writeSillyTavernChat,
} from './sillytavern-chat.ts'

export type ChatTransferDeps = {
  repo: ChatTransferRepo
  /** The character a chat is imported onto, read as a new chat reads it. */
  chats: Pick<ChatRepo, 'findRoleForChat'>
  catalogue: Pick<CatalogueService, 'adultConfirmed'>
}

/** The spec's name of a chat's character that is gone. */
const UNKNOWN_ROLE = 'Unknown Role'

/** A name as a file name on every system: no path separators, reserved or control characters. */
const fileSafe = (name: string) =>
  name
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
    .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_')
    .trim()
    .slice(0, 100) || 'chat'

/**
 * A chat's history in and out (ADR 051): download a chat as SillyTavern's JSONL or as Markdown;
 * import a SillyTavern JSONL chat onto a character the user may chat with, as a new chat whose
 * messages are marked imported and cost nothing.
 */
export function createChatTransfer({ repo, chats, catalogue }: ChatTransferDeps) {
  return {
    /** The chat as a file: its name, media type and text. Another user's chat is an invalid session. */
    async exportChat(userId: string, sessionId: string, format: ChatExportFormat) {
      if (!UUID.test(sessionId)) throw invalidSession()
      const found = await repo.chatForExport(sessionId, userId)
      if (!found) throw invalidSession()
      const swipesOf = Map.groupBy(found.swipes, (s) => s.messageId)
      const characterName = found.roleName ?? UNKNOWN_ROLE
      const chat: PortableChat = {
        userName: found.username,
        characterName,
        createdAt: found.createdAt,
        authorNote: { text: found.authorNote, depth: found.authorNoteDepth },
        messages: found.messages.map((m) => {
          const own = swipesOf.get(m.id) ?? []
          // A reply has its alternatives (the shown one among them); a user message only its text.
          const swipes =
            m.author === 'assistant' && own.length > 0
              ? own.map((s) => ({ content: s.content, sentAt: s.createdAt, modelId: s.modelId }))
              : [{ content: m.content, sentAt: m.createdAt, modelId: m.modelId }]
          const shown = Math.min(m.swipeIndex, swipes.length - 1)
          return {
            author: m.author,
            speakerName: m.speakerName,
            sentAt: m.createdAt,
            modelId: m.modelId,
            swipes,
            shown,
          }
        }),
      }
      const base = `${fileSafe(characterName)} - ${humanizedDate(found.createdAt)}`
      return format === 'sillytavern'
        ? { fileName: `${base}.jsonl`, type: 'application/jsonl; charset=utf-8', text: writeSillyTavernChat(chat) }
        : { fileName: `${base}.md`, type: 'text/markdown; charset=utf-8', text: writeMarkdownChat(chat) }
    },

    /**
     * A SillyTavern chat file as a new chat of `userId` with the character `rolePublicId`. The
     * file is read whole and checked before anything is stored; a refusal stores nothing.
     */
    async importSillyTavern(
      userId: string,
      rolePublicId: string,
      bytes: Buffer,
      adultCookie: boolean,
    ): Promise<ChatImportResult> {
      // Every swipe is counted as it is stored (ADR 067).
      await tokenizerReady()
      const role = await chats.findRoleForChat(rolePublicId)
      if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
        throw AppError.notFound('No such character')
      }
      if (role.isAdult && !(await catalogue.adultConfirmed(userId, adultCookie))) {
        throw new AppError(403, 'FORBIDDEN', 'Confirm that you are 18 or older to chat with this character.', {
          reason: 'ADULT_CONTENT',
        })
      }
      let read: ReturnType<typeof readSillyTavernChat>
      try {
        // `fatal`: bytes that are not UTF-8 are no chat file, rather than text with replacement marks.
        read = readSillyTavernChat(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
      } catch (error) {
        throw refusal(error)
      }
      const messages = read.chat.messages.map((m) => ({
        author: m.author,
        sentAt: m.sentAt,
        shown: m.shown,
        swipes: m.swipes.map((s) => ({ content: s.content, sentAt: s.sentAt, tokens: countTokens(s.content) })),
      }))
      const sessionId = await repo.storeImportedChat({
        userId,
        roleId: role.id,
        createdAt: read.chat.createdAt,
        messages,
        authorNote: read.chat.authorNote,
      })
      return {
        sessionId,
        messages: messages.length,
        swipes: messages.reduce((n, m) => n + (m.author === 'assistant' ? m.swipes.length : 0), 0),
        leftOut: read.leftOut,
      }
    },
  }
}

/** A file's problem as the API's error: 413 for its sizes, 400 INVALID_CHAT_FILE for the rest. */
function refusal(error: unknown): AppError {
  if (error instanceof TypeError) {
    return new AppError(400, 'INVALID_CHAT_FILE', 'The chat file is not UTF-8 text.', { reason: 'invalid_text' })
  }
  if (!(error instanceof ChatFileProblem)) throw error
  const details = { reason: error.reason, ...error.details }
  const where = error.details.line ? ` (line ${error.details.line})` : ''
  if (error.reason === 'too_large') {
    return new AppError(413, 'PAYLOAD_TOO_LARGE', `The chat file is over a size limit${where}.`, details)
  }
  const words: Record<Exclude<typeof error.reason, 'too_large'>, string> = {
    empty_file: 'The chat file is empty.',
    bad_line: `A line of the chat file is not a JSON object${where}.`,
    no_header: 'The chat file does not start with a SillyTavern chat header.',
    bad_message: `A message of the chat file is not as SillyTavern writes it${where}.`,
    no_messages: 'The chat file holds no message to import.',
    invalid_text: `The chat file holds text that cannot be stored${where}.`,
  }
  return new AppError(400, 'INVALID_CHAT_FILE', words[error.reason], details)
}

export type ChatTransfer = ReturnType<typeof createChatTransfer>
