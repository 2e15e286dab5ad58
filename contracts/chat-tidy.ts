import type { z } from 'zod'
import type { characterSessionsSchema, chatSearchHitSchema, chatSearchSchema } from './chat-tidy-schemas.ts'

// Find and tidy one's chats (issue 22 item 7, ADR 048): search, rename, pin, delete with undo; and a
// character's chats for its page (item 1). No zod here: the pages import these constants (the
// schemas of the calls are in chat-tidy-schemas.ts).

/** A deleted chat can be restored this long; then the `chat-purge` job removes it for good. */
export const CHAT_UNDO_WINDOW_MS = 10_000
/** The longest chat title, in characters. */
export const CHAT_TITLE_MAX_LENGTH = 100
/** Search words taken from what the user typed (the rest are ignored). */
export const CHAT_SEARCH_MAX_WORDS = 8
export const CHAT_SEARCH_PAGE_SIZE_MAX = 50
/** Characters of a message around the first match shown as a search result's snippet. */
export const CHAT_SEARCH_SNIPPET_LENGTH = 160
/** Renames, pins, deletes and restores per user: a person tidying does a few a minute. */
export const CHAT_TIDY_LIMIT = { max: 60, windowMs: 60_000 } as const
/** Searches per user. */
export const CHAT_SEARCH_LIMIT = { max: 30, windowMs: 60_000 } as const

export type ChatSearchHit = z.infer<typeof chatSearchHitSchema>
export type ChatSearchResult = z.infer<typeof chatSearchSchema>
export type CharacterSessions = z.infer<typeof characterSessionsSchema>
