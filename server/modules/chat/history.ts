import type { Lorebook } from '#contracts/characters.ts'
import { tokenizerReady } from '#server/modules/models/tokens.ts'
import type { ChatRepo } from './chat.repo.ts'
import { HISTORY_PAGE, toHistory } from './chat-views.ts'
import { countsCharacterMessages } from './lorebook.ts'
import { type HistoryMessage, messageCost } from './prompt.ts'

export type LoadedHistory = { history: HistoryMessage[]; olderExist: boolean }

/**
 * Recent messages (before `beforeId` when given), oldest first, until they surely overflow `budget`.
 * `firstPage`: the newest HISTORY_PAGE messages, when the caller read them already.
 */
export async function loadHistory(
  repo: Pick<ChatRepo, 'recentMessages'>,
  sessionId: string,
  budget: number,
  beforeId?: number,
  firstPage?: HistoryMessage[],
) {
  // Every prompt is built from a loaded history: waiting here lets the prompt count synchronously.
  await tokenizerReady()
  const newestFirst: HistoryMessage[] = []
  let used = 0
  let cursor = beforeId
  let page = firstPage
  for (;;) {
    const rows = page ?? (await repo.recentMessages(sessionId, { before: cursor, limit: HISTORY_PAGE }))
    page = undefined
    for (const row of rows) {
      newestFirst.push(toHistory(row))
      used += messageCost(row)
      if (used > budget) return { history: newestFirst.reverse(), olderExist: true }
    }
    const last = rows.at(-1)
    if (rows.length < HISTORY_PAGE || !last) return { history: newestFirst.reverse(), olderExist: false }
    cursor = last.id
  }
}

/**
 * The character's messages older than the loaded ones (the prompt's `olderCharacterMessages`):
 * counted only when older messages exist and the lorebook has entries that need the count.
 */
export async function olderCharacterMessages(
  repo: Pick<ChatRepo, 'countCharacterMessagesBefore'>,
  sessionId: string,
  loaded: LoadedHistory,
  book: Lorebook | null | undefined,
): Promise<number | undefined> {
  const oldest = loaded.history[0]
  if (!loaded.olderExist || !oldest || !countsCharacterMessages(book)) return undefined
  return repo.countCharacterMessagesBefore(sessionId, oldest.id)
}
