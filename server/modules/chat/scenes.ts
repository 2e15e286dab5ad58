import { SCENE_MAX_MEMBERS, type Scene, type SceneMode } from '#contracts/chat-scenes.ts'
import { AppError } from '#server/lib/errors.ts'
import { imageUrl } from '#server/modules/images/images.service.ts'
import type { SessionView } from './chat.repo.ts'
import { invalidSession } from './chat-views.ts'
import type { Character, HistoryMessage } from './prompt.ts'
import type { MemberRow, SceneMembersRepo } from './scene-members.repo.ts'
import { attributedHistory, memberCharacter, otherNamesStops, sceneNote } from './scene-prompt.ts'
import { chooseSpeaker } from './scene-speaker.ts'
import type { ChatSessions } from './sessions.ts'

/**
 * Group scenes (ADR 052): a chat's members, its mode, and the cast of each reply (who speaks, and
 * the prompt's parts that make it that character's). A chat of one character has no cast: every
 * path stays the one of an ordinary chat.
 */

/** What generation.ts needs to make a reply the speaker's. */
export type Cast = {
  speakerRoleId: number
  speaker: { id: string; name: string }
  character: Character
  /** The "Also in this scene" part of the system prompt. */
  note: string
  history: HistoryMessage[]
  /** Stop strings: the other members' and the user's "\nName:" lines. */
  stops: string[]
}

/** What decides the speaker of one reply. */
export type CastRequest = {
  session: SessionView
  history: readonly HistoryMessage[]
  /** The member asked for (public id): "Let … speak", or the user's pick with a send. */
  requested: string | null
  /** The reply keeps its speaker: a regenerate of it (its id) or a Continue of it (its speaker). */
  keepOf: { messageId: number } | { speakerRoleId: number | null } | null
}

type Deps = {
  repo: SceneMembersRepo
  sessions: Pick<ChatSessions, 'requireSession' | 'chattableRole' | 'viewerSeesAdult'>
}

/**
 * The operator's stop strings first, then the scene's, at most four in all when the operator's
 * leave room (OpenAI's limit). None when the model takes none (MODELS_FILE `stop: []`).
 */
export function sceneStops(own: string[] | undefined, scene: readonly string[]): string[] | undefined {
  if (!own) return undefined
  return [...new Set([...own, ...scene])].slice(0, Math.max(own.length, 4))
}

export function createScenes({ repo, sessions }: Deps) {
  /** The members in order; a scene of one is the chat's own character. */
  async function sceneOf(userId: string, sessionId: string, adultCookie: boolean): Promise<Scene> {
    const session = await sessions.requireSession(sessionId, userId)
    const rows = await repo.membersOf(session.id)
    const adultOk = await sessions.viewerSeesAdult(userId, adultCookie)
    const avatar = (r: Pick<MemberRow, 'isAdult' | 'avatarImageId' | 'avatarBlurredImageId'>) =>
      imageUrl(r.isAdult && !adultOk ? r.avatarBlurredImageId : r.avatarImageId)
    const members =
      rows.length > 0
        ? rows.map((r) => ({ id: r.publicId, name: r.name, avatar: avatar(r) }))
        : session.rolePublicId
          ? [
              {
                id: session.rolePublicId,
                name: session.roleName ?? '',
                avatar: avatar({
                  isAdult: session.roleIsAdult ?? false,
                  avatarImageId: session.roleAvatarImageId,
                  avatarBlurredImageId: session.roleAvatarBlurredImageId,
                }),
              },
            ]
          : []
    return { mode: await repo.modeOf(session.id), members, maxMembers: SCENE_MAX_MEMBERS }
  }

  async function memberIdOf(userId: string, rolePublicId: string, adultCookie: boolean) {
    return (await sessions.chattableRole(userId, rolePublicId, adultCookie)).id
  }

  return {
    sceneOf,

    async addMember(userId: string, sessionId: string, rolePublicId: string, adultCookie: boolean) {
      const session = await sessions.requireSession(sessionId, userId)
      const roleId = await memberIdOf(userId, rolePublicId, adultCookie)
      const outcome = await repo.addMember(session.id, userId, roleId, SCENE_MAX_MEMBERS)
      if (outcome === 'gone') throw invalidSession()
      if (outcome === 'member') {
        throw new AppError(409, 'ALREADY_IN_SCENE', 'This character is in the scene already.')
      }
      if (outcome === 'full') {
        throw new AppError(409, 'SCENE_FULL', `A scene holds at most ${SCENE_MAX_MEMBERS} characters.`, {
          maxMembers: SCENE_MAX_MEMBERS,
        })
      }
      return sceneOf(userId, session.id, adultCookie)
    },

    async removeMember(userId: string, sessionId: string, rolePublicId: string, adultCookie: boolean) {
      const session = await sessions.requireSession(sessionId, userId)
      const members = await repo.membersOf(session.id)
      const member = members.find((m) => m.publicId === rolePublicId)
      const roleId = member?.roleId ?? (session.rolePublicId === rolePublicId ? session.roleId : null)
      if (roleId === null) throw AppError.notFound('This character is not in the scene.')
      const outcome = await repo.removeMember(session.id, userId, roleId)
      if (outcome === 'gone') throw invalidSession()
      if (outcome === 'absent') throw AppError.notFound('This character is not in the scene.')
      if (outcome === 'last') {
        throw new AppError(409, 'SCENE_LAST_MEMBER', 'The last character of a chat cannot leave it.')
      }
      return sceneOf(userId, session.id, adultCookie)
    },

    async setMode(userId: string, sessionId: string, mode: SceneMode, adultCookie: boolean) {
      const session = await sessions.requireSession(sessionId, userId)
      if (!(await repo.setMode(session.id, userId, mode))) throw invalidSession()
      return sceneOf(userId, session.id, adultCookie)
    },

    /** Refuses a speaker who is not a member (a "speak" call), before anything is reserved. */
    async requireMember(session: SessionView, rolePublicId: string) {
      const members = await repo.membersOf(session.id)
      const known = members.length > 0 ? members.map((m) => m.publicId) : [session.rolePublicId]
      if (!known.includes(rolePublicId)) throw AppError.notFound('This character is not in the scene.')
    },

    /** The cast of one reply; null for a chat of one character (the ordinary prompt). */
    async castFor(request: CastRequest): Promise<Cast | null> {
      const { session } = request
      // A chat of one character, as most are: no scene to read (the session read counted its rows).
      if (session.sceneMembers < 2) return null
      const members = await repo.membersOf(session.id)
      if (members.length < 2) return null
      const ids = request.history.map((m) => m.id)
      const keep = request.keepOf
      const speakers = await repo.speakersOf(session.id, keep && 'messageId' in keep ? [...ids, keep.messageId] : ids)
      const lastReplies = new Map(await repo.lastReplies(session.id))
      const lastReply = [...request.history].reverse().find((m) => m.author === 'assistant')
      const kept =
        keep === null ? null : 'messageId' in keep ? (speakers.get(keep.messageId) ?? null) : keep.speakerRoleId
      const last = request.history.at(-1)
      const speakerRoleId =
        (kept !== null && members.some((m) => m.roleId === kept) ? kept : null) ??
        chooseSpeaker({
          mode: await repo.modeOf(session.id),
          members,
          requested: members.find((m) => m.publicId === request.requested)?.roleId ?? null,
          lastSpeaker: lastReply ? (speakers.get(lastReply.id) ?? session.roleId) : null,
          lastReplies,
          userMessage: last?.author === 'user' ? last.content : '',
        })
      const speaker = members.find((m) => m.roleId === speakerRoleId) ?? (members[0] as MemberRow)
      const others = members.filter((m) => m !== speaker)
      // Former members keep their names on their lines.
      const names = new Map(members.map((m) => [m.roleId, m.name]))
      const unknown = [...new Set([...speakers.values()].filter((id): id is number => id !== null && !names.has(id)))]
      for (const row of await repo.namesOf(unknown)) names.set(row.id, row.name)
      return {
        speakerRoleId: speaker.roleId,
        speaker: { id: speaker.publicId, name: speaker.name },
        character: memberCharacter(speaker),
        note: sceneNote(others),
        history: attributedHistory(request.history, {
          speakerRoleId: speaker.roleId,
          speakers,
          names,
          userName: session.username,
          defaultRoleId: session.roleId,
        }),
        stops: otherNamesStops(others, session.username),
      }
    },

    /** The speakers of messages as the reader shows them; empty for a chat that was never a scene. */
    async speakerLabels(sessionId: string, messageIds: readonly number[]) {
      const speakers = await repo.speakersOf(sessionId, messageIds)
      const ids = [...new Set([...speakers.values()].filter((id): id is number => id !== null))]
      const found = new Map((await repo.namesOf(ids)).map((r) => [r.id, { id: r.publicId, name: r.name }]))
      const labels = new Map<number, { id: string; name: string }>()
      for (const [messageId, roleId] of speakers) {
        const label = roleId === null ? undefined : found.get(roleId)
        if (label) labels.set(messageId, label)
      }
      return labels
    },
  }
}

export type Scenes = ReturnType<typeof createScenes>
