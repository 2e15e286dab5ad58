import type { SceneMode } from '#contracts/chat-scenes.ts'

/**
 * Who answers in a scene (ADR 052). Pure: the caller reads the members and their last replies.
 * The model is never asked to choose: an extra paid call, and small models choose badly.
 */
export type SpeakerChoice = {
  mode: SceneMode
  /** Role ids in speaking order, with their names. */
  members: readonly { roleId: number; name: string }[]
  /** The user's pick (manual mode, or "Let … speak" in any mode), when it is a member. */
  requested: number | null
  /** The newest reply's speaker; null when no character spoke yet. */
  lastSpeaker: number | null
  /** The id of each member's newest reply; a member missing here never spoke. */
  lastReplies: ReadonlyMap<number, number>
  /** The user's message the reply answers ('' for none). */
  userMessage: string
}

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The member named first in `text` (a whole word, any case); null when none is. */
export function namedIn(text: string, members: SpeakerChoice['members']): number | null {
  let best: { roleId: number; at: number } | null = null
  for (const m of members) {
    const name = m.name.trim()
    if (!name) continue
    const match = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, 'iu').exec(text)
    if (match && (best === null || match.index < best.at)) best = { roleId: m.roleId, at: match.index }
  }
  return best?.roleId ?? null
}

/** The member who has not spoken longest: one who never spoke first (in member order), else the oldest last reply. */
export function quietest(members: SpeakerChoice['members'], lastReplies: ReadonlyMap<number, number>): number | null {
  let best: { roleId: number; last: number } | null = null
  for (const m of members) {
    const last = lastReplies.get(m.roleId) ?? -1
    if (best === null || last < best.last) best = { roleId: m.roleId, last }
  }
  return best?.roleId ?? null
}

export function chooseSpeaker(choice: SpeakerChoice): number | null {
  const { members } = choice
  if (members.length === 0) return null
  if (choice.requested !== null && members.some((m) => m.roleId === choice.requested)) return choice.requested
  if (choice.mode === 'turns') {
    const at = members.findIndex((m) => m.roleId === choice.lastSpeaker)
    return members[(at + 1) % members.length]?.roleId ?? null
  }
  if (choice.mode === 'natural') {
    return namedIn(choice.userMessage, members) ?? quietest(members, choice.lastReplies)
  }
  // Manual without a pick: the character the user was talking with, else the first.
  return members.some((m) => m.roleId === choice.lastSpeaker) ? choice.lastSpeaker : (members[0]?.roleId ?? null)
}
