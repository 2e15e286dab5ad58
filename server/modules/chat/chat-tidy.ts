import {
  CHAT_SEARCH_MAX_WORDS,
  CHAT_SEARCH_SNIPPET_LENGTH,
  CHAT_TITLE_MAX_LENGTH,
  CHAT_UNDO_WINDOW_MS,
  type CharacterSessions,
  type ChatSearchResult,
} from '#contracts/chat-tidy.ts'
import { DEFAULT_LOCALE, type Locale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import { DeferJobError, type JobQueue } from '#server/modules/jobs/job-queue.ts'
import type { ChatRepo } from './chat.repo.ts'
import { chatIndexWords, chatSearchQuery } from './chat-search-terms.ts'
import { contentHash } from './chat-tidy.repo.ts'
import { invalidSession, roleOf, UUID } from './chat-views.ts'
import type { ChatSessions } from './sessions.ts'
import type { TurnSlots } from './turn-slots.ts'

export type ChatTidyDeps = {
  repo: ChatRepo
  sessions: Pick<ChatSessions, 'requireSession' | 'summariesOf'>
  slots: Pick<TurnSlots, 'stopAndWait'>
  jobs: Pick<JobQueue, 'enqueue'>
}

/** Messages split into words per round trip while a search catches up, and at most per search. */
const INDEX_BATCH = 500
const INDEX_MAX_PER_SEARCH = 20_000

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The part of a message around the first place a search word starts, whitespace flattened, cut at
 * `CHAT_SEARCH_SNIPPET_LENGTH` with `…`, and where the words are in it. Words match as prefixes,
 * as the search does; without a match (the words come from another split) the message's start.
 */
export function snippetOf(content: string, words: string[]) {
  const flat = content.replace(/\s/g, ' ')
  const pattern = words.length > 0 ? new RegExp(words.map(escapeRegExp).join('|'), 'giu') : null
  const first = pattern ? flat.search(pattern) : -1
  const lead = Math.floor(CHAT_SEARCH_SNIPPET_LENGTH / 3)
  let start = Math.max(0, (first < 0 ? 0 : first) - lead)
  let end = Math.min(flat.length, start + CHAT_SEARCH_SNIPPET_LENGTH)
  start = Math.max(0, Math.min(start, end - CHAT_SEARCH_SNIPPET_LENGTH))
  // Never split a character written as two UTF-16 units.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(flat[start] ?? '')) start -= 1
  if (end < flat.length && /[\uDC00-\uDFFF]/.test(flat[end] ?? '')) end += 1
  const before = start > 0 ? '…' : ''
  const snippet = `${before}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`
  const highlights: [number, number][] = []
  if (pattern) {
    for (const match of snippet.matchAll(pattern)) {
      if (match.index === undefined || match[0].length === 0) continue
      highlights.push([match.index, match.index + match[0].length])
    }
  }
  return { snippet, highlights }
}

/**
 * Find and tidy one's chats (ADR 048): search over every message of one's chats, titles, pins,
 * deletion with an undo window, and the chats with one character for its page.
 */
export function createChatTidy({ repo, sessions, slots, jobs }: ChatTidyDeps) {
  /** Splits the user's messages that wait for it into words, so the search sees them. */
  async function indexWaiting(userId: string, locale: Locale) {
    for (let done = 0; done < INDEX_MAX_PER_SEARCH; done += INDEX_BATCH) {
      const batch = await repo.messagesToIndex(userId, INDEX_BATCH)
      await repo.writeWords(
        batch.map((m) => ({
          messageId: m.messageId,
          hash: contentHash(m.content),
          // Intl.Segmenter breaks CJK and Thai by their script whatever the locale; the chat's
          // language decides only what little differs (ADR 039). CJK runs add their character pairs.
          words: chatIndexWords(m.content, m.language ?? locale),
        })),
      )
      if (batch.length < INDEX_BATCH) return
    }
  }

  const tidied = (row: { id: string; title: string | null; pinnedAt: Date | null } | null) => {
    if (!row) throw invalidSession()
    return { id: row.id, title: row.title, pinned: row.pinnedAt !== null }
  }
  const checkId = (sessionId: string) => {
    if (!UUID.test(sessionId)) throw invalidSession()
  }

  return {
    /** A blank title gives the chat back its character's name. */
    async rename(userId: string, sessionId: string, title: string) {
      checkId(sessionId)
      const clean = title.replace(/\s+/g, ' ').trim()
      if ([...clean].length > CHAT_TITLE_MAX_LENGTH) {
        throw AppError.badRequest(`A chat title may have at most ${CHAT_TITLE_MAX_LENGTH} characters.`)
      }
      return tidied(await repo.setTitle(sessionId, userId, clean || null))
    },

    async pin(userId: string, sessionId: string, pinned: boolean) {
      checkId(sessionId)
      return tidied(await repo.setPinned(sessionId, userId, pinned))
    },

    /**
     * Deletes a chat: at once gone from every list and call, restorable for CHAT_UNDO_WINDOW_MS,
     * then removed with its messages by the `chat-purge` job. A reply being written is stopped and
     * stored first.
     */
    async deleteSession(userId: string, sessionId: string) {
      await sessions.requireSession(sessionId, userId)
      await slots.stopAndWait(sessionId)
      // Queued first: a purge that finds the chat not deleted does nothing, a chat marked deleted
      // without its purge would stay forever.
      await jobs.enqueue(
        'chat-purge',
        { sessionId },
        { key: `chat-purge:${sessionId}`, runAt: new Date(Date.now() + CHAT_UNDO_WINDOW_MS) },
      )
      const deletedAt = await repo.markDeleted(sessionId, userId)
      if (!deletedAt) throw invalidSession()
      return {
        deleted: true as const,
        restorableUntil: new Date(deletedAt.getTime() + CHAT_UNDO_WINDOW_MS).toISOString(),
      }
    },

    /** Undo: the chat as it was, if it was deleted less than CHAT_UNDO_WINDOW_MS ago. */
    async restoreSession(userId: string, sessionId: string) {
      checkId(sessionId)
      if (!(await repo.restore(sessionId, userId, new Date(Date.now() - CHAT_UNDO_WINDOW_MS)))) {
        throw new AppError(
          410,
          'CHAT_NOT_RESTORABLE',
          'This chat can no longer be restored: it was deleted too long ago, or is not yours.',
        )
      }
      return { restored: true as const }
    },

    /** The `chat-purge` job: removes the chat once its undo window has passed. */
    async purgeDeleted(payload: { sessionId: string }) {
      const outcome = await repo.purge(payload.sessionId, new Date(Date.now() - CHAT_UNDO_WINDOW_MS))
      if (outcome.kind === 'wait') {
        // Deleted again after an undo: its window runs from the second deletion.
        throw new DeferJobError(Math.max(1000, outcome.deletedAt.getTime() + CHAT_UNDO_WINDOW_MS - Date.now()))
      }
    },

    /** The user's chats with a character (for its page): "Continue" opens the first. */
    async sessionsWithCharacter(
      userId: string,
      rolePublicId: string,
      options: { page: number; pageSize: number; adultCookie: boolean; locale?: Locale | undefined },
    ): Promise<CharacterSessions> {
      const role = await repo.findRoleForChat(rolePublicId)
      const { page, pageSize } = options
      const { rows, total } =
        role && (role.visibility === 'public' || role.creatorId === userId)
          ? await repo.sessionsWithRole(userId, role.id, (page - 1) * pageSize, pageSize)
          : { rows: [], total: 0 }
      return {
        sessions: await sessions.summariesOf(userId, rows, options.adultCookie, options.locale),
        page,
        pageSize,
        total,
        totalPages: Math.ceil(total / pageSize),
      }
    },

    /**
     * Messages of the user's chats holding every word typed (each as a word's start), newest
     * first. What was typed is split into words as the messages were (contracts/search-words.ts),
     * so Japanese, Chinese and Thai, written without spaces, are found by their words; Chinese and
     * Japanese also by their character pairs, inside longer words (chat-search-terms.ts).
     */
    async search(
      userId: string,
      query: { q: string; page: number; pageSize: number; locale?: Locale | undefined },
      adultCookie: boolean,
    ): Promise<ChatSearchResult> {
      const { page, pageSize } = query
      const locale = query.locale ?? DEFAULT_LOCALE
      const built = chatSearchQuery(query.q, locale, CHAT_SEARCH_MAX_WORDS)
      if (!built) return { hits: [], page, pageSize, total: 0, totalPages: 0 }
      const { tsQuery, words } = built
      await indexWaiting(userId, locale)
      const { rows, total } = await repo.searchMessages(userId, tsQuery, (page - 1) * pageSize, pageSize)
      const summaries = await sessions.summariesOf(userId, rows, adultCookie, query.locale)
      return {
        hits: rows.map((row, i) => ({
          sessionId: row.id,
          title: row.title,
          role: summaries[i]?.role ?? roleOf(row, false),
          messageId: row.messageId,
          author: row.author,
          ...snippetOf(row.content, words),
          createdAt: row.messageCreatedAt.toISOString(),
        })),
        page,
        pageSize,
        total,
        totalPages: Math.ceil(total / pageSize),
      }
    },
  }
}

export type ChatTidy = ReturnType<typeof createChatTidy>
