import { randomBytes } from 'node:crypto'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import type { CardFile } from '#server/modules/cards/card-types.ts'

/**
 * The files an imported card carried (ADR 047), held for the importing user between the import
 * (nothing saved yet: the user reviews the form) and the save, which names them by the token the
 * import answered. One set per user: a newer import replaces it, so a user holds at most
 * CARD_LIMITS.maxAssetsTotalBytes here. Held in the key-value store (Redis when configured, so
 * any instance can take the save) for HOLD_MS.
 */

export const HOLD_MS = 30 * 60_000

type Held = { token: string; files: (Omit<CardFile, 'bytes'> & { bytes: string })[] }

const keyOf = (userId: string) => `card-files:${userId}`

export function createCardFilesHold(kv: Pick<KeyValueStore, 'get' | 'set' | 'delete'>) {
  return {
    /** Holds the files for the user; returns the token the save sends back as `cardFiles`. */
    async hold(userId: string, files: readonly CardFile[]): Promise<string> {
      const token = randomBytes(18).toString('base64url')
      const held: Held = { token, files: files.map((f) => ({ ...f, bytes: f.bytes.toString('base64') })) }
      await kv.set(keyOf(userId), JSON.stringify(held), HOLD_MS)
      return token
    },

    /**
     * The files held for the user under this token, or null when they expired, a newer import
     * replaced them, or the token is not this user's. Still held: a refused save can be retried.
     */
    async find(userId: string, token: string): Promise<CardFile[] | null> {
      const text = await kv.get(keyOf(userId))
      if (text === null) return null
      const held = JSON.parse(text) as Held
      if (held.token !== token) return null
      return held.files.map((f) => ({ ...f, bytes: Buffer.from(f.bytes, 'base64') }))
    },

    /** After the save that took them. */
    async release(userId: string): Promise<void> {
      await kv.delete(keyOf(userId))
    },
  }
}

export type CardFilesHold = ReturnType<typeof createCardFilesHold>
