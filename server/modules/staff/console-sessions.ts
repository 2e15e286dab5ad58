import { createHash, randomBytes } from 'node:crypto'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { endedByMark, TOKENS_ENDED_KEY } from '#server/modules/auth/access-token.ts'

/** How long a console unlocked by the second factor stays open (ADR 054). */
export const CONSOLE_SESSION_TTL_MS = 8 * 60 * 60_000
/** A sensitive action needs a code verified this recently. */
export const FRESH_CONFIRMATION_MS = 5 * 60_000
/** The request header that carries the console token. */
export const CONSOLE_TOKEN_HEADER = 'x-console-token'

type ConsoleSession = { userId: string; unlockedAt: number; confirmedAt: number }

const key = (token: string) => `console:${createHash('sha256').update(token).digest('hex')}`

/**
 * Console tokens: what a staff member gets for a verified second factor, sent with every console
 * call beside the access token. Only its SHA-256 is kept, in the key-value store (shared through
 * Redis), for eight hours; "log out everywhere" ends it like the access tokens (ADR 021).
 */
export function createConsoleSessions(kv: KeyValueStore, now: () => number = () => Date.now()) {
  async function read(token: string): Promise<ConsoleSession | null> {
    const raw = await kv.get(key(token))
    if (!raw) return null
    try {
      return JSON.parse(raw) as ConsoleSession
    } catch {
      return null
    }
  }

  return {
    async open(userId: string): Promise<string> {
      const token = randomBytes(32).toString('base64url')
      const at = now()
      await kv.set(key(token), JSON.stringify({ userId, unlockedAt: at, confirmedAt: at }), CONSOLE_SESSION_TTL_MS)
      return token
    },

    /** The session of `token` if it is this user's and was not ended since. */
    async find(userId: string, token: string | undefined): Promise<ConsoleSession | null> {
      if (!token) return null
      const session = await read(token)
      if (!session || session.userId !== userId) return null
      if (endedByMark(session.unlockedAt, await kv.get(TOKENS_ENDED_KEY(userId)))) return null
      return session
    },

    isFresh(session: ConsoleSession): boolean {
      return now() - session.confirmedAt <= FRESH_CONFIRMATION_MS
    },

    /** A code was verified again: sensitive actions are open for five minutes more. */
    async confirm(token: string, session: ConsoleSession): Promise<void> {
      const left = session.unlockedAt + CONSOLE_SESSION_TTL_MS - now()
      if (left <= 0) return
      await kv.set(key(token), JSON.stringify({ ...session, confirmedAt: now() }), left)
    },
  }
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>
